import { randomUUID } from "node:crypto";
import { expect, inject } from "vitest";
import type { Config } from "@/lib/config";
import type { Clock } from "@/lib/time-format";
import { waitFor } from "@/tests/support/wait-for";
import { uniqueName } from "./pg";
import { startServer, type RunningServer } from "./server";

/** Points this test process at the run's database and Redis, as the servers are. */
export function applyRunEnvironment(): void {
  process.env.DATABASE_URL = inject("databaseUrl");
  process.env.REDIS_URL = inject("redisUrl");
  process.env.REDIS_PREFIX = inject("redisPrefix");
}

/**
 * The run's database from this test process: the process's root (lib/root.ts), pointed at the run's
 * database and Redis. The test files share one process, and a root built earlier from another
 * configuration (a test's root on a database of its own) is
 * closed first, so keys are never minted where the servers do not look.
 */
export async function testDb() {
  return (await testRoot()).db();
}

/** The root testDb uses (its database's bulkWrite, say). */
export async function testRoot() {
  applyRunEnvironment();
  const { closeRoot, createRoot } = await import("@/lib/root");
  const { heldRoot, heldRootIfAny } = await import("@/lib/root-slot");
  const { parseConfig } = await import("@/lib/config");
  const run = parseConfig(process.env);
  const held = heldRootIfAny() as ReturnType<typeof createRoot> | undefined;
  if (
    held &&
    (held.config.DATABASE_URL !== run.DATABASE_URL ||
      held.config.REDIS_URL !== run.REDIS_URL ||
      held.config.REDIS_PREFIX !== run.REDIS_PREFIX)
  )
    await closeRoot();
  return heldRoot(() => createRoot(run));
}

/**
 * A root of the test's own (its own database or clock, say) held as this process's root in place
 * of the one held before; `restore` closes it and holds the earlier one again.
 */
export async function holdOwnRoot(config: Config, clock?: Clock) {
  const { closeRoot, createRoot } = await import("@/lib/root");
  const { dropHeldRoot, heldRoot, heldRootIfAny } = await import("@/lib/root-slot");
  const before = heldRootIfAny();
  if (before) dropHeldRoot(before);
  const root = heldRoot(() => createRoot(config, { clock }));
  const restore = async () => {
    await closeRoot();
    if (before) heldRoot(() => before);
  };
  return { root, restore };
}

/**
 * Waits until the start-up work of every instance (or of the servers at `bases`) has ended: its
 * backfill done and nothing after it pending (a bundle build loads the database and the machine,
 * and queries made meanwhile may run out of their bound and answer 503 on a busy machine).
 */
export async function startupSettled(timeoutMs = 600_000, bases: string[] = inject("baseUrls")): Promise<void> {
  for (const base of bases)
    await waitFor(
      `the start-up work of ${base} to end`,
      async () => {
        const body = (await (await fetch(`${base}/healthz`)).json()) as {
          backfill: { state: string; pending: boolean };
        };
        return body.backfill.state === "done" && body.backfill.pending === false;
      },
      { timeoutMs, intervalMs: 250 },
    );
}

/**
 * A server of the test file's own (its log readable, its settings its own) on the run's database
 * and Redis, under a Redis prefix of its own: the demo market (computed already, so it finds it
 * done), the engine's schedule off, the address throttle out of reach unless `env` says otherwise.
 * Returned once its start-up work has ended.
 */
export async function ownServer(tag: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({
    DATABASE_URL: inject("databaseUrl"),
    REDIS_URL: inject("redisUrl"),
    REDIS_PREFIX: `${uniqueName(tag)}:`,
    DEMO_MARKET: "1",
    ENGINE_SCHEDULER: "0",
    IP_LIMIT_MINUTE: "1000000",
    ...env,
  });
  await startupSettled(180_000, [server.baseUrl]);
  return server;
}

export function baseUrl(instance = 0): string {
  const urls = inject("baseUrls");
  return urls[instance % urls.length]!;
}

export interface NewKey {
  key: string;
  id: string;
  userId: string;
  email: string;
}

/** A fresh account and key per test, so tests never share quota or state. */
export async function newKey(options: { limitMinute?: number; limitDay?: number } = {}): Promise<NewKey> {
  applyRunEnvironment();
  const { ensureUser, mintKey } = await import("@/lib/keys/manage-keys");
  const prisma = await testDb();
  const email = `t-${randomUUID()}@example.com`;
  const userId = await ensureUser(prisma, email);
  const { key, summary } = await mintKey(prisma, userId, {
    name: "test",
    limitMinute: options.limitMinute ?? 10_000,
    limitDay: options.limitDay ?? 100_000,
  });
  return { key, id: summary.id, userId, email };
}

export async function call(
  path: string,
  init: {
    key?: string;
    header?: "bearer" | "x-api-key";
    instance?: number;
    method?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) {
    if (init.header === "x-api-key") headers["X-API-Key"] = init.key;
    else headers.Authorization = `Bearer ${init.key}`;
  }
  const res = await fetch(`${baseUrl(init.instance)}${path}`, { method: init.method ?? "GET", headers });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  return { status: res.status, headers: res.headers, body: body as Record<string, any> };
}

export const RATE_HEADERS = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-limit-day",
  "x-ratelimit-remaining-day",
  "x-ratelimit-reset",
  "x-ratelimit-reset-day",
];

/** The one error shape, with requestId equal to the header and a docsUrl anchored at the code. */
export function expectError(res: Awaited<ReturnType<typeof call>>, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.requestId).toBe(res.headers.get("x-request-id"));
  const anchor = code === "error" ? "/docs/limits" : `/docs/errors#${code}`;
  const docs = new URL(res.body.error.docsUrl);
  expect(`${docs.pathname}${docs.hash}`).toBe(anchor);
}

export function expectRateHeaders(res: { headers: Headers }, present: boolean): void {
  for (const h of RATE_HEADERS) expect(res.headers.has(h), h).toBe(present);
}

/**
 * A key's usage counters once they add up to at least `atLeast` requests (metering flushes in
 * batches): a function giving the count of an endpoint and status class, with the rows and the
 * endpoints counted.
 */
export async function countedUsage(keyId: string, atLeast: number) {
  const prisma = await testDb();
  const rows = await waitFor(`${atLeast} requests of the key counted`, async () => {
    const found = await prisma.usageCounter.findMany({
      where: { keyId },
      select: { endpoint: true, statusClass: true, count: true },
    });
    return found.reduce((n, r) => n + r.count, 0) >= atLeast && found;
  });
  const count = (endpoint: string, statusClass: string) =>
    rows.find((r) => r.endpoint === endpoint && r.statusClass === statusClass)?.count ?? 0;
  return Object.assign(count, { rows, endpoints: [...new Set(rows.map((r) => r.endpoint))].sort() });
}
