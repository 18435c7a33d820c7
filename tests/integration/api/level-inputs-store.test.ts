import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { LevelInputs } from "@/lib/engine/types";
import { insertLevels } from "@/lib/ingest/engine-runner";
import { expandLevelInputs, isCompact, loadConstituentSets, type StoredLevelInputs } from "@/lib/db/level-inputs";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (level storage): levels are written with their constituents' ids once per index and set
// (level_constituent_sets) and only the per-hour prices in `inputs`; read back, they give the
// inputs the engine computed. Levels stored before, with the full inputs, read as they are.

const HOUR = 3_600_000;
const START = new Date("2026-10-01T00:00:00Z");
const at = (h: number) => new Date(START.getTime() + h * HOUR);
const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const inputsAt = (h: number, ids: string[]): LevelInputs => ({
  pricingVersion: "v1",
  baseLevel: "100",
  baseBasketValue: "0.45",
  constituents: ids.map((conditionId, i) => ({
    conditionId,
    price: `0.${400 + h + i}`,
    source: "mid",
    observedAt: at(h - (i === 1 ? 2 : 0)).toISOString(),
    stale: i === 1,
  })),
});
const level = (indexId: string, h: number, inputs: LevelInputs) => ({
  indexId,
  t: at(h),
  level: "100.5",
  revision: 0,
  stale: false,
  compositionVersion: "v1",
  freshMarketsCount: 1,
  staleMarketsCount: 1,
  totalMarketsCount: 2,
  computedAt: at(h),
  inputs: JSON.parse(JSON.stringify(inputs)) as object,
});

let db: OwnDatabase | undefined;
let prisma: PrismaClient;
let indexId = "";

beforeAll(async () => {
  db = await ownMigratedDatabase("pmb_level_inputs");
  prisma = db.prisma;
  indexId = (
    await prisma.index.create({
      data: { ticker: "LVL-IN", name: "Levels", inceptionAt: START, methodologyVersion: "1.0.0" },
    })
  ).id;
}, 120_000);

afterAll(async () => {
  await db?.drop();
});

async function readBack(): Promise<Map<number, { stored: StoredLevelInputs; inputs: LevelInputs }>> {
  const rows = await prisma.indexLevel.findMany({
    where: { indexId },
    orderBy: { t: "asc" },
    select: { t: true, inputs: true },
  });
  const stored = rows.map((r) => ({ t: r.t, inputs: r.inputs as unknown as StoredLevelInputs }));
  const sets = await loadConstituentSets(
    prisma,
    new Set(stored.flatMap((r) => (isCompact(r.inputs) ? [r.inputs.set] : []))),
  );
  return new Map(
    stored.map((r) => [
      (r.t.getTime() - START.getTime()) / HOUR,
      { stored: r.inputs, inputs: expandLevelInputs(r.inputs, indexId, r.t, sets) },
    ]),
  );
}

describe("level inputs: constituents once per set, prices per hour", () => {
  const first = [id(3), id(1), id(2)];
  const second = [id(3), id(2)];

  it("writes each set once and reads every level back with the inputs it was computed from", async () => {
    await prisma.$transaction((tx) =>
      insertLevels(
        tx,
        [0, 1, 2].map((h) => level(indexId, h, inputsAt(h, first))),
      ),
    );
    await prisma.$transaction((tx) =>
      insertLevels(
        tx,
        [3, 4].map((h) => level(indexId, h, inputsAt(h, h === 3 ? first : second))),
      ),
    );
    const sets = await prisma.levelConstituentSet.findMany({ where: { indexId } });
    expect(sets.map((s) => s.conditionIds).sort((a, b) => a.length - b.length)).toEqual([second, first]);
    const back = await readBack();
    for (const h of [0, 1, 2, 3, 4]) {
      expect(back.get(h)!.inputs).toEqual(inputsAt(h, h === 4 ? second : first));
      expect(JSON.stringify(back.get(h)!.stored)).not.toContain(id(1));
    }
  });

  it("levels stored with the full inputs (written before the compact form) read as they were written", async () => {
    const old = inputsAt(5, first);
    await prisma.$executeRawUnsafe(
      `INSERT INTO index_levels ("indexId", t, level, stale, "compositionVersion", "freshMarketsCount", "staleMarketsCount", "totalMarketsCount", "computedAt", inputs)
       VALUES ($1::uuid, $2, 100.5, false, 'v1', 1, 1, 2, $2, $3::jsonb)`,
      indexId,
      at(5),
      JSON.stringify(old),
    );
    const back = await readBack();
    expect(isCompact(back.get(5)!.stored)).toBe(false);
    expect(back.get(5)!.inputs).toEqual(old);
    expect(back.get(4)!.inputs).toEqual(inputsAt(4, second));
  });

  it("removing the index removes its sets", async () => {
    await prisma.index.delete({ where: { id: indexId } });
    expect(await prisma.levelConstituentSet.count({ where: { indexId } })).toBe(0);
  });
});
