import { createHash } from "node:crypto";
import type { ConstituentPrice, LevelInputs } from "@/lib/engine/types";
import type { Prisma } from "@/lib/generated/prisma/client";

type Tx = Prisma.TransactionClient;

/**
 * A level's `inputs` as stored: the constituents' condition ids once per index and set (table
 * level_constituent_sets, named by `set`), here only what changes hour to hour. Arrays are in the
 * set's order. `o`, `s` and `x` are left out when every constituent has the usual value.
 */
export interface CompactLevelInputs {
  pricingVersion: string;
  baseLevel: string;
  baseBasketValue: string;
  /** key of the constituent set (digest of its condition ids in order) */
  set: string;
  /** each constituent's price, full precision */
  p: string[];
  /** milliseconds each price's observation lies before the level's hour (absent: all observed at the hour) */
  o?: number[];
  /** each constituent's price source (absent: all "mid") */
  s?: ConstituentPrice["source"][];
  /** positions of the stale constituents (absent: none) */
  x?: number[];
}

/** Either form a level's `inputs` may have in the table: written before the compact form, or compact. */
export type StoredLevelInputs = LevelInputs | CompactLevelInputs;

export const isCompact = (inputs: StoredLevelInputs): inputs is CompactLevelInputs => "set" in inputs;

export function setKey(ids: readonly string[]): string {
  return createHash("sha256").update(ids.join("\n")).digest("base64url").slice(0, 22);
}

/** The compact form of `inputs` for the level at `t`, and the condition ids its `set` names. */
export function compactLevelInputs(inputs: LevelInputs, t: Date): { inputs: CompactLevelInputs; ids: string[] } {
  const ids = inputs.constituents.map((c) => c.conditionId);
  const at = t.getTime();
  const offsets = inputs.constituents.map((c) => at - Date.parse(c.observedAt));
  const out: CompactLevelInputs = {
    pricingVersion: inputs.pricingVersion,
    baseLevel: inputs.baseLevel,
    baseBasketValue: inputs.baseBasketValue,
    set: setKey(ids),
    p: inputs.constituents.map((c) => c.price),
  };
  if (offsets.some((x) => x !== 0)) out.o = offsets;
  if (inputs.constituents.some((c) => c.source !== "mid")) out.s = inputs.constituents.map((c) => c.source);
  const stale = inputs.constituents.flatMap((c, i) => (c.stale ? [i] : []));
  if (stale.length) out.x = stale;
  return { inputs: out, ids };
}

/** The full inputs of index `indexId`'s level at `t`, from either stored form (`sets`: condition ids by `indexId|key`). */
export function expandLevelInputs(
  stored: StoredLevelInputs,
  indexId: string,
  t: Date,
  sets: ReadonlyMap<string, readonly string[]>,
): LevelInputs {
  if (!isCompact(stored)) return stored;
  const ids = sets.get(`${indexId}|${stored.set}`);
  if (!ids)
    throw new Error(`level inputs at ${t.toISOString()} name constituent set ${stored.set}, which is not stored`);
  if (ids.length !== stored.p.length)
    throw new Error(`level inputs at ${t.toISOString()}: ${stored.p.length} prices for a set of ${ids.length}`);
  const stale = new Set(stored.x ?? []);
  const at = t.getTime();
  return {
    pricingVersion: stored.pricingVersion,
    baseLevel: stored.baseLevel,
    baseBasketValue: stored.baseBasketValue,
    constituents: ids.map((conditionId, i) => ({
      conditionId,
      price: stored.p[i]!,
      source: stored.s?.[i] ?? "mid",
      observedAt: new Date(at - (stored.o?.[i] ?? 0)).toISOString(),
      stale: stale.has(i),
    })),
  };
}

/**
 * Level rows as they are written: each full `inputs` replaced by its compact form, after storing
 * the constituent sets they name (a set already stored is left as it is).
 */
export async function compactLevelRows(
  tx: Tx,
  rows: readonly Prisma.IndexLevelCreateManyInput[],
): Promise<Prisma.IndexLevelCreateManyInput[]> {
  const sets = new Map<string, { indexId: string; key: string; ids: string[] }>();
  const out = rows.map((row) => {
    const inputs = row.inputs as unknown as StoredLevelInputs | null | undefined;
    if (!inputs || typeof inputs !== "object" || isCompact(inputs)) return row;
    const c = compactLevelInputs(inputs, new Date(row.t));
    sets.set(`${row.indexId}|${c.inputs.set}`, { indexId: row.indexId, key: c.inputs.set, ids: c.ids });
    return { ...row, inputs: c.inputs as unknown as Prisma.InputJsonValue };
  });
  if (sets.size) {
    const all = [...sets.values()];
    await tx.$executeRawUnsafe(
      `INSERT INTO level_constituent_sets ("indexId", key, "conditionIds")
       SELECT r."indexId"::uuid, r.key, ARRAY(SELECT jsonb_array_elements_text(r.ids))
       FROM jsonb_to_recordset($1::jsonb) AS r("indexId" text, key text, ids jsonb)
       ON CONFLICT ("indexId", key) DO NOTHING`,
      JSON.stringify(all),
    );
  }
  return out;
}

/** The constituent sets named by `keys`, as a map from `indexId|key` to condition ids (the map expandLevelInputs reads). */
export async function loadConstituentSets(
  tx: Pick<Tx, "$queryRawUnsafe">,
  keys: ReadonlySet<string>,
): Promise<Map<string, string[]>> {
  if (keys.size === 0) return new Map();
  const rows = await tx.$queryRawUnsafe<Array<{ indexId: string; key: string; conditionIds: string[] }>>(
    `SELECT "indexId"::text AS "indexId", key, "conditionIds" FROM level_constituent_sets WHERE key = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))`,
    JSON.stringify([...keys]),
  );
  return new Map(rows.map((r) => [`${r.indexId}|${r.key}`, r.conditionIds]));
}
