import type { Prisma } from "@/lib/generated/prisma/client";
import type { DriftFinding } from "@/lib/venues/http";

type Tx = Prisma.TransactionClient;

/** The key of one drift: a venue's endpoint and the field that differs. */
export const driftKey = (f: Pick<DriftFinding, "venue" | "endpoint" | "field">) =>
  `${f.venue}|${f.endpoint}|${f.field}`;

/** A drift as one log line (never a body: the detail names a path, a status or headers). */
export const driftLine = (f: DriftFinding) => `[venues] drift: ${f.venue} ${f.endpoint} ${f.field}: ${f.detail}`;

/**
 * Records what one collector run saw of a venue's API: each finding is active from now (kept
 * active, with its newest detail, when it already was); an active finding of an endpoint that
 * answered as relied on in this run (`healthy`) and showed no drift is cleared. Each active one
 * is an incident (lib/data/incident-rule.ts), opened and closed by recordIncidents. Returns the
 * findings that were not active before (the collector logs them).
 */
export async function recordDrift(
  tx: Tx,
  venue: string,
  findings: readonly DriftFinding[],
  healthy: ReadonlySet<string>,
  at: Date,
): Promise<DriftFinding[]> {
  const active = await tx.venueDrift.findMany({
    where: { venue, clearedAt: null },
    select: { key: true, endpoint: true },
  });
  const activeKeys = new Set(active.map((a) => a.key));
  const seen = new Set(findings.map(driftKey));
  const drifted = new Set(findings.map((f) => f.endpoint));
  const fresh: DriftFinding[] = [];
  for (const f of findings) {
    const key = driftKey(f);
    if (!activeKeys.has(key)) fresh.push(f);
    await tx.venueDrift.upsert({
      where: { key },
      create: {
        key,
        venue: f.venue,
        endpoint: f.endpoint,
        field: f.field,
        detail: f.detail.slice(0, 500),
        firstSeenAt: at,
        lastSeenAt: at,
      },
      update: {
        detail: f.detail.slice(0, 500),
        lastSeenAt: at,
        ...(activeKeys.has(key) ? {} : { firstSeenAt: at, clearedAt: null }),
      },
    });
  }
  const cleared = active
    .filter((a) => !seen.has(a.key) && healthy.has(a.endpoint) && !drifted.has(a.endpoint))
    .map((a) => a.key);
  if (cleared.length) await tx.venueDrift.updateMany({ where: { key: { in: cleared } }, data: { clearedAt: at } });
  return fresh;
}

/** Records the drift of each venue's run (see recordDrift) and logs each new finding, one line each. */
export async function recordRunsDrift(
  tx: Tx,
  runs: ReadonlyArray<{ venue: string; drift: readonly DriftFinding[]; healthy: ReadonlySet<string> }>,
  at: Date,
): Promise<void> {
  for (const { venue, drift, healthy } of runs)
    for (const f of await recordDrift(tx, venue, drift, healthy, at)) console.warn(driftLine(f));
}
