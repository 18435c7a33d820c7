import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { generateKey } from "@/lib/keys/api-key";
import { createAccessLogger, createLogger, scrub } from "@/lib/server/logging";
import { routeLabel } from "@/lib/server/http-server";

// Never a key, token or cookie in the log (lib/server/logging.ts); route labels are templates,
// never raw paths (metrics and the access log stay bounded).

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger("test-instance", sink), access: createAccessLogger("test-instance", sink) };
}

describe("log lines never carry a secret", () => {
  const { key } = generateKey();

  it.each([
    ["an API key in text", `front GET /v1/indices?key=${key}: boom`],
    ["a bearer credential", `Authorization: Bearer ${key}`],
    ["a magic-link token in a URL", "GET /api/auth/confirm?token=abcdef0123456789abcdef&email=a%40b.c"],
    ["a session cookie", "cookie: authjs.session-token=eyJhbGciOi.secret.value; other=1"],
  ])("%s is masked", (_label, text) => {
    const out = scrub(text);
    expect(out).toContain("[redacted]");
    expect(out).not.toContain(key);
    expect(out).not.toMatch(/abcdef0123456789abcdef|eyJhbGciOi\.secret\.value/);
  });

  it("a logged line is one JSON object with time, level, instance and pid, its message scrubbed and its secret fields redacted", () => {
    const { lines, logger } = capture();
    logger.error(
      { headers: { authorization: `Bearer ${key}`, cookie: "s=1" }, token: "t0ken" },
      `failed for ${key}\n    at stack (x.js:1:1)`,
    );
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({
      level: "error",
      instance: "test-instance",
      pid: process.pid,
      token: "[redacted]",
      headers: { authorization: "[redacted]", cookie: "[redacted]" },
    });
    expect(new Date(line.time).toISOString()).toBe(line.time);
    expect(lines[0]).not.toContain(key);
    expect(line.msg).toContain("\n    at stack"); // one line on the wire, the stack inside it
  });
});

describe("the access log", () => {
  it("writes lines of the process log's shape to the same destination", () => {
    const { lines, logger, access } = capture();
    logger.info("started");
    access.info({ requestId: "req_1", method: "GET", route: "/v1/indices", status: 200, durationMs: 1.2 }, "request");
    expect(lines).toHaveLength(2);
    const [plain, line] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(line!).slice(0, 4)).toEqual(Object.keys(plain!).slice(0, 4));
    expect(line).toMatchObject({
      level: "info",
      instance: "test-instance",
      pid: process.pid,
      route: "/v1/indices",
      msg: "request",
    });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
  });
});

describe("route labels", () => {
  it.each([
    ["/v1/indices", "/v1/indices"],
    ["/v1/indices/PMX-ELEC/latest", "/v1/indices/{ticker}/latest"],
    ["/v1/volatility/ANY-THING/history", "/v1/volatility/{ticker}/history"],
    ["/v1/no/such/endpoint", "/v1/*"],
    ["/mcp", "/mcp"],
    ["/livez", "/livez"],
    ["/docs/api/index-latest", "/docs/*"],
    ["/portal/keys", "/portal/*"],
    ["/_next/static/chunks/a.js", "/_next/*"],
    ["/wp-admin/setup.php", "other"],
  ])("%s -> %s", (path, label) => {
    expect(routeLabel(path)).toBe(label);
  });
});
