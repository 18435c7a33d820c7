import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { applyRunEnvironment, countedUsage, testDb } from "../support/api";
import { mintInPortal, startPortal, type Account, type Portal } from "../support/portal";

// The request log of a key: requests made with the key on a production server (the run's
// PostgreSQL and Redis, mail over a real SMTP server) are found on the key's portal page by the
// request id the API answered with, including a 404 and a 429, and nothing secret is stored.
applyRunEnvironment();

let stop: (() => Promise<void>) | undefined;
let p: Portal;

async function prisma() {
  return testDb();
}

const mint = (account: Account, name: string) => mintInPortal(p, account, name);

async function call(key: string, path: string): Promise<{ status: number; requestId: string; code: string | null }> {
  const res = await fetch(`${p.base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  const body = (await res.json().catch(() => ({}))) as { error?: { code: string; requestId: string } };
  const requestId = res.headers.get("x-request-id")!;
  if (body.error) expect(body.error.requestId).toBe(requestId);
  return { status: res.status, requestId, code: body.error?.code ?? null };
}

/** The key page searched for `requestId`, once the row is there (metering flushes in batches). */
async function findOnPage(account: Account, keyId: string, requestId: string): Promise<string> {
  return waitFor(`request ${requestId} in the key's log`, async () => {
    const page = await p.get(`/portal/keys/${keyId}?request=${encodeURIComponent(requestId)}`, account.cookie);
    expect(page.status).toBe(200);
    return new RegExp(`<tr[^>]*data-request-id="${requestId}"[\\s\\S]*?</tr>`).exec(page.html)?.[0];
  });
}

beforeAll(async () => {
  ({ p, stop } = await startPortal("request-log"));
});

afterAll(() => stop?.());

describe("request log", () => {
  it("finds a 200, a 404 and a 429 by the request id the API answered with; nothing secret is kept", async () => {
    const account = await p.signIn();
    const { id, key } = await mint(account, "log");
    const db = await prisma();
    await db.apiKey.update({ where: { id }, data: { limitMinute: 3 } }); // before the key's first use

    const ok = await call(key, "/v1");
    const missing = await call(key, `/v1/no-such-endpoint?from=2026-01-01&api_key=${key}`);
    const third = await call(key, "/v1");
    const limited = await call(key, "/v1");
    expect([ok.status, missing.status, third.status, limited.status]).toEqual([200, 404, 200, 429]);
    expect([missing.code, limited.code]).toEqual(["not_found", "rate_limited"]);

    const okRow = await findOnPage(account, id, ok.requestId);
    expect(okRow).toContain('data-status="200"');
    expect(okRow).toContain("/v1");

    const missingRow = await findOnPage(account, id, missing.requestId);
    expect(missingRow).toContain('data-status="404"');
    expect(missingRow).toContain("not_found");
    expect(missingRow).toContain("/v1/no-such-endpoint?from=2026-01-01&amp;api_key=[redacted]");
    expect(missingRow).not.toContain(key);

    const limitedRow = await findOnPage(account, id, limited.requestId);
    expect(limitedRow).toContain('data-status="429"');
    expect(limitedRow).toContain("rate_limited");

    // A search by the first characters of an id finds it; the search shows only matches.
    const partial = await p.get(
      `/portal/keys/${id}?request=${limited.requestId.slice(0, 13).toUpperCase()}`,
      account.cookie,
    );
    expect(partial.html).toContain(`data-request-id="${limited.requestId}"`);
    expect(partial.html).not.toContain(`data-request-id="${ok.requestId}"`);
    // The whole log, newest first.
    const all = await p.get(`/portal/keys/${id}`, account.cookie);
    const order = [...all.html.matchAll(/data-request-id="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([limited.requestId, third.requestId, missing.requestId, ok.requestId]);

    // What is stored: no key, no header, only the columns shown.
    const stored = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(
      `SELECT * FROM request_log WHERE "keyId" = $1::uuid`,
      id,
    );
    expect(stored).toHaveLength(4);
    expect(JSON.stringify(stored, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toContain(
      key.slice(9),
    );
    expect(Object.keys(stored[0]!).sort()).toEqual([
      "at",
      "endpoint",
      "errorCode",
      "id",
      "keyId",
      "method",
      "path",
      "requestId",
      "status",
    ]);

    // Another account sees nothing of this key.
    const other = await p.signIn();
    expect((await p.get(`/portal/keys/${id}?request=${ok.requestId}`, other.cookie)).status).toBe(404);
  });

  it("logs every request of a key (insert-only), and the usage counters count every one", async () => {
    const account = await p.signIn();
    const { id, key } = await mint(account, "busy");
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) ids.push((await call(key, `/v1?n=${i}`)).requestId);
    await findOnPage(account, id, ids[104]!);
    const db = await prisma();
    const counted = (await countedUsage(id, 105)).rows.reduce((n, r) => n + r.count, 0);
    expect(counted).toBe(105);
    const kept = await db.requestLogEntry.findMany({
      where: { keyId: id },
      orderBy: [{ at: "asc" }, { id: "asc" }],
      select: { requestId: true, path: true },
    });
    expect(kept.map((r) => r.requestId)).toEqual(ids);
    expect(kept[0]!.path).toBe("/v1?n=0");
  });
});
