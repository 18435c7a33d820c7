import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { applyCatalogText } from "@/lib/ingest/catalog-apply";
import { changelogView } from "@/lib/data/changelog";
import type { ReadContext } from "@/lib/data/read-cache";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (governance, change policy; methodology, "Methodology versions"): a volatility series on an
// earlier methodology than the engine's moves to it from the next hour to compute, also when the
// catalog file did not change; the catalog's partition order is stored on the series; the
// changelog lists each methodology version with its effective date.

const TEXT = fs.readFileSync("catalog/demo.json", "utf8");
const START = new Date("2026-08-01T00:00:00Z");
let db: OwnDatabase | undefined;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await ownMigratedDatabase("pmb_volcal");
  prisma = db.prisma;
}, 120_000);

afterAll(() => db?.drop());

const apply = () =>
  prisma.$transaction((tx) =>
    applyCatalogText(tx, "catalog/demo.json", TEXT, { demo: true, seed: 7, now: START, demoStart: START }),
  );

describe("volatility methodology versions", () => {
  it("a new series starts on the engine's methodology with its catalog partition order", async () => {
    await apply();
    const rows = await prisma.volatilitySeries.findMany({
      select: { ticker: true, methodologyVersion: true, partitionOrder: true },
      orderBy: { ticker: "asc" },
    });
    expect(rows.map((r) => [r.ticker, r.methodologyVersion, r.partitionOrder])).toEqual([
      ["PMV-BTCRANGE", "vol-2.0", "ordered"],
      ["PMV-CHAMP", "vol-2.0", "unordered"],
      ["PMV-FED", "vol-2.0", "ordered"],
      ["PMV-NOMINEE", "vol-2.0", "unordered"],
      ["PMV-STORMS", "vol-2.0", "ordered"],
    ]);
  });

  it("a series left on vol-1.x moves to vol-2.0 when the same catalog is applied again; one on vol-2.x keeps its version", async () => {
    await prisma.volatilitySeries.update({ where: { ticker: "PMV-FED" }, data: { methodologyVersion: "vol-1.2" } });
    await prisma.volatilitySeries.update({ where: { ticker: "PMV-NOMINEE" }, data: { methodologyVersion: "vol-2.1" } });
    const summary = await apply();
    expect(summary.bumped).toEqual({ "PMV-FED": "vol-2.0" });
    expect(summary.unchanged).toBe(false);
    const rows = await prisma.volatilitySeries.findMany({
      where: { ticker: { in: ["PMV-FED", "PMV-NOMINEE"] } },
      select: { ticker: true, methodologyVersion: true },
    });
    expect(Object.fromEntries(rows.map((r) => [r.ticker, r.methodologyVersion]))).toEqual({
      "PMV-FED": "vol-2.0",
      "PMV-NOMINEE": "vol-2.1",
    });
    expect((await apply()).unchanged).toBe(true);
  });

  it("the changelog lists vol-2.0 with its effective date and what it changed", async () => {
    const rc: ReadContext = {
      db: async () => prisma as never,
      cache: {
        memo: <T>(_key: string, _ttl: number, load: () => Promise<T>) => load(),
        clear: () => undefined,
      } as unknown as ReadContext["cache"],
      progress: { state: "done" } as ReadContext["progress"],
    };
    const view = await changelogView(rc);
    const entry = view.entries.find((e) => e.title === "Volatility methodology vol-2.0 effective 2026-11-28");
    expect(entry?.at).toBe("2026-11-28T00:00:00.000000Z");
    expect(entry?.kind).toBe("methodology");
    expect(entry?.detail).toContain("Ordered partitions");
  });
});
