import type { Prisma } from "@/lib/generated/prisma/client";

type Tx = Prisma.TransactionClient;

// Prisma's typed Json input rounds every double to 16 significant digits (0.1 + 0.2 is stored as
// 0.3). The engine's and the demo's states carry sums and probabilities that later hours build on,
// so they are written as JSON text instead: JSON.stringify prints each double in its shortest
// round-trip form and jsonb keeps a number's text exactly, so what is read back is the same double.

type SqlType = "text" | "jsonb" | "timestamptz" | "boolean" | "int";

const ident = (name: string) => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RangeError(`not an identifier: ${name}`);
  return `"${name}"`;
};

/**
 * Updates `columns` of the rows of `table` whose `key` matches, from plain objects (JSON values
 * written losslessly: Dates as ISO text). One statement for every row.
 */
export async function updateRowsExact(
  tx: Tx,
  table: string,
  key: [string, SqlType],
  columns: ReadonlyArray<[string, SqlType]>,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  if (rows.length === 0) return;
  const all = [key, ...columns];
  await tx.$executeRawUnsafe(
    `UPDATE ${ident(table)} AS x SET ${columns.map(([c]) => `${ident(c)} = r.${ident(c)}`).join(", ")}
     FROM jsonb_to_recordset($1::jsonb) AS r(${all.map(([c, type]) => `${ident(c)} ${type}`).join(", ")})
     WHERE x.${ident(key[0])} = r.${ident(key[0])}`,
    JSON.stringify(rows),
  );
}

/** Writes the demo's (or the stored feed's) state and the newest computed hour to engine_state, losslessly. */
export async function saveEngineStateExact(
  tx: Tx,
  row: { lastTickAt: Date; demoState: unknown; create: { demoSeed: number | null; corrections: number } },
): Promise<void> {
  await tx.$executeRawUnsafe(
    `INSERT INTO engine_state (id, "lastTickAt", "demoSeed", "demoState", corrections, "updatedAt")
     SELECT 1, r."lastTickAt", r."demoSeed", r."demoState", r.corrections, now()
     FROM jsonb_to_record($1::jsonb) AS r("lastTickAt" timestamptz, "demoSeed" int, "demoState" jsonb, corrections int)
     ON CONFLICT (id) DO UPDATE SET "lastTickAt" = EXCLUDED."lastTickAt", "demoState" = EXCLUDED."demoState", "updatedAt" = now()`,
    JSON.stringify({
      lastTickAt: row.lastTickAt,
      demoSeed: row.create.demoSeed,
      demoState: row.demoState,
      corrections: row.create.corrections,
    }),
  );
}
