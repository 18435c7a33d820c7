import { afterAll, describe, expect, it } from "vitest";
import { holdOwnRoot, newKey, testDb } from "../support/api";

// Rule (lib/root.ts): the time the /v1 pipeline reads (the keys' windows, their headers, the
// metering) is the root's clock, so a test holds it still or moves it instead of waiting.

let restore: (() => Promise<void>) | null = null;

afterAll(async () => {
  await restore?.();
});

describe("the root's clock", () => {
  it("decides the windows: a key at its minute limit is refused, and admitted again once the clock has moved a minute", async () => {
    await testDb();
    const { key } = await newKey({ limitMinute: 2, limitDay: 100 });
    const { parseConfig } = await import("@/lib/config");
    const { answerEndpoint } = await import("@/lib/api/pipeline");
    const { endpoints } = await import("@/lib/api/endpoints");
    const { fromWebRequest } = await import("@/lib/api/result");

    // a root of this test's on the run's database, windows in this process (Redis's would read Redis's own clock)
    const start = Date.UTC(2031, 0, 1, 12, 0, 0);
    let now = start;
    const held = await holdOwnRoot(parseConfig({ ...process.env, REDIS_URL: "" }), { now: () => now });
    restore = held.restore;
    const mine = held.root;

    const ask = async () => {
      const request = fromWebRequest(
        new Request("http://localhost/v1", { headers: { authorization: `Bearer ${key}`, "x-pmb-peer": "10.9.8.7" } }),
      );
      return answerEndpoint(mine, endpoints.service.path, endpoints.service.handler, request);
    };
    const first = await ask();
    expect(first.status).toBe(200);
    // the reset is a minute after the clock's time, not the machine's
    expect(first.headers["X-RateLimit-Reset"]).toBe(String(start / 1000 + 60));
    expect((await ask()).status).toBe(200);
    now += 59_000;
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(refused.headers["Retry-After"]).toBe("1");
    now += 1_000;
    const again = await ask();
    expect(again.status).toBe(200);
    expect(again.headers["X-RateLimit-Remaining"]).toBe("1");
  });
});
