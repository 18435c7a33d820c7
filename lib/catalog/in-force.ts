import type { Prisma } from "@/lib/generated/prisma/client";

type Reader = { catalogVersion: Prisma.TransactionClient["catalogVersion"] };

/** The catalogs whose rules were in force during [from, to): the one applied last before `from` and every one applied within. */
export async function catalogsInForce(db: Reader, from: Date, to: Date): Promise<Array<{ sha256: string; appliedAt: string }>> {
  const before = await db.catalogVersion.findFirst({ where: { appliedAt: { lt: from } }, orderBy: { id: "desc" }, select: { sha256: true, appliedAt: true } });
  const within = await db.catalogVersion.findMany({ where: { appliedAt: { gte: from, lt: to } }, orderBy: { id: "asc" }, select: { sha256: true, appliedAt: true } });
  return [...(before ? [before] : []), ...within].map((c) => ({ sha256: c.sha256, appliedAt: c.appliedAt.toISOString() }));
}
