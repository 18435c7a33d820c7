import { applyCatalog } from "@/lib/catalog/apply-catalog";
import { validateCatalog } from "@/lib/catalog/validate";
import type { NameAsTextPool } from "@/lib/db/pg-pool";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { dropDatabase, migratedDatabase } from "./pg";
import { polyBook, startFakeVenues, type FakeVenues } from "../../support/fake-venues";

/** A database of its own, local venues over HTTP, and one Polymarket index over the tag "crypto". */
export interface PolyTagIndex {
  pool: NameAsTextPool;
  prisma: PrismaClient;
  fake: FakeVenues;
  /** Stops the venues, closes the database and drops it. */
  close(): Promise<void>;
}

/**
 * A migrated database `name` and local venues listing one single-market event per id (market
 * `0x<id>`, YES token `tok-<id>` with a 0.40/0.43 book) under the tag "crypto", ending 60 days
 * after `start`, and the catalog index `ticker` over that tag applied from `start`.
 */
export async function polyTagIndex(
  name: string,
  ticker: string,
  ids: readonly string[],
  start: Date,
): Promise<PolyTagIndex> {
  const { pool, prisma } = await migratedDatabase(name);
  const fake = await startFakeVenues();
  const end = new Date(start.getTime() + 60 * 86_400_000).toISOString();
  for (const id of ids) {
    fake.poly.events.push({
      slug: `ev-${id}`,
      title: `Event ${id}`,
      negRisk: false,
      tags: ["crypto"],
      endDate: end,
      markets: [{ conditionId: `0x${id}`, question: `Market ${id}?`, yesToken: `tok-${id}`, endDate: end }],
    });
    fake.poly.books.set(`tok-${id}`, polyBook(0.4, 0.43));
  }
  const file = `${ticker}.json`;
  const entry = {
    ticker,
    name: "Crypto",
    description: "Test.",
    inceptionAt: start.toISOString(),
    maturityType: "PERPETUAL",
    universe: { venue: "polymarket", tagSlugs: ["crypto"] },
  };
  const catalog = validateCatalog(file, JSON.stringify({ version: 1, indices: [entry] }));
  await prisma.$transaction((tx) =>
    applyCatalog(tx, file, catalog, { start, events: new Map(), nextHour: new Date(0) }),
  );
  return {
    pool,
    prisma,
    fake,
    close: async () => {
      await fake.close();
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
      await dropDatabase(name);
    },
  };
}
