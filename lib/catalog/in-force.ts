import type { Prisma } from "@/lib/generated/prisma/client";
import { iso6 } from "@/lib/time-format";

type Reader = { catalogVersion: Prisma.TransactionClient["catalogVersion"] };

/**
 * The catalogs whose rules were in force during [from, to): the one applied last before `from`
 * and every one applied within. When none was applied before `from` or within, the month's hours
 * were computed after the fact (the demo's backfill, a venue catalog whose inception lies before
 * the day it was applied) under the first catalog ever applied, which is then the one listed.
 */
export async function catalogsInForce(
  db: Reader,
  from: Date,
  to: Date,
): Promise<Array<{ sha256: string; appliedAt: string }>> {
  const select = { sha256: true, appliedAt: true } as const;
  const within = await db.catalogVersion.findMany({
    where: { appliedAt: { gte: from, lt: to } },
    orderBy: { id: "asc" },
    select,
  });
  const before =
    (await db.catalogVersion.findFirst({ where: { appliedAt: { lt: from } }, orderBy: { id: "desc" }, select })) ??
    (within.length
      ? null
      : await db.catalogVersion.findFirst({ where: { appliedAt: { gte: to } }, orderBy: { id: "asc" }, select }));
  return [...(before ? [before] : []), ...within].map((c) => ({ sha256: c.sha256, appliedAt: iso6(c.appliedAt) }));
}
