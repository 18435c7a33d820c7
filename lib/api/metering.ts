import "server-only";
import { config } from "@/lib/config";
import { db } from "@/lib/db";
import { onShutdown } from "@/lib/server/shutdown";

export type StatusClass = "2xx" | "4xx" | "429" | "5xx";

export function statusClass(status: number): StatusClass {
  if (status === 429) return "429";
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  return "2xx";
}

interface Pending {
  counts: Map<string, number>;
  lastUsed: Map<string, Date>;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | null;
}

const pending: Pending = ((globalThis as { __pmbMeter?: Pending }).__pmbMeter ??= {
  counts: new Map(),
  lastUsed: new Map(),
  timer: null,
  flushing: null,
});

function hourOf(date: Date): Date {
  const d = new Date(date);
  d.setUTCMinutes(0, 0, 0);
  return d;
}

/** Counts one request; never waits on the database (writes are batched). */
export function meter(keyId: string, endpoint: string, status: number, at = new Date()): void {
  const id = [keyId, hourOf(at).toISOString(), endpoint, statusClass(status)].join("|");
  pending.counts.set(id, (pending.counts.get(id) ?? 0) + 1);
  pending.lastUsed.set(keyId, at);
  if (!pending.timer) {
    pending.timer = setInterval(() => void flushUsage(), config().METERING_FLUSH_MS);
    pending.timer.unref();
    onShutdown(flushUsage, 10);
  }
}

/** Writes what is pending in one statement; on failure the counts stay for the next attempt. */
export async function flushUsage(): Promise<void> {
  if (pending.flushing) return pending.flushing;
  if (pending.counts.size === 0 && pending.lastUsed.size === 0) return;
  const counts = pending.counts;
  const lastUsed = pending.lastUsed;
  pending.counts = new Map();
  pending.lastUsed = new Map();
  pending.flushing = (async () => {
    try {
      const prisma = await db();
      const rows = [...counts].map(([id, n]) => {
        const [keyId, hour, endpoint, cls] = id.split("|");
        return { keyId, hour, endpoint, cls, n };
      });
      await prisma.$transaction(async (tx) => {
        if (rows.length) {
          await tx.$executeRawUnsafe(
            `INSERT INTO usage_counters ("keyId", hour, endpoint, "statusClass", count)
             SELECT r."keyId"::uuid, r.hour::timestamptz, r.endpoint, r.cls, r.n
             FROM jsonb_to_recordset($1::jsonb) AS r("keyId" text, hour text, endpoint text, cls text, n int)
             WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r."keyId"::uuid)
             ON CONFLICT ("keyId", hour, endpoint, "statusClass") DO UPDATE SET count = usage_counters.count + EXCLUDED.count`,
            JSON.stringify(rows),
          );
        }
        const used = [...lastUsed].map(([keyId, at]) => ({ keyId, at: at.toISOString() }));
        if (used.length) {
          await tx.$executeRawUnsafe(
            `UPDATE api_keys k SET "lastUsedAt" = GREATEST(COALESCE(k."lastUsedAt", u.at::timestamptz), u.at::timestamptz)
             FROM jsonb_to_recordset($1::jsonb) AS u("keyId" text, at text) WHERE k.id = u."keyId"::uuid`,
            JSON.stringify(used),
          );
        }
      });
    } catch (error) {
      for (const [id, n] of counts) pending.counts.set(id, (pending.counts.get(id) ?? 0) + n);
      for (const [keyId, at] of lastUsed) if (!pending.lastUsed.has(keyId)) pending.lastUsed.set(keyId, at);
      console.error(`[metering] flush failed, ${counts.size} counters kept for retry: ${(error as Error).message.split("\n")[0]}`);
    } finally {
      pending.flushing = null;
    }
  })();
  return pending.flushing;
}
