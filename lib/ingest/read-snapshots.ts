import { parse } from "csv-parse/sync";
import { z } from "zod";

/** One snapshot row of an ingestion file, validated; decimals stay strings. */
export interface SnapshotRow {
  line: number;
  observedAt: Date;
  conditionId: string;
  legKey: string | null;
  label: string;
  bestBid: string;
  bestAsk: string;
  mid: string;
  depthUsd: string;
  settlementDate: Date | null;
  resolved: boolean;
  outcome: 0 | 1 | null;
  /** a market not stored yet: where it comes from, so the catalog's universe can claim it */
  venue: string | null;
  eventKey: string | null;
  tags: string[];
  series: string | null;
}

export class IngestError extends Error {
  readonly kind = "IngestError" as const;
  constructor(readonly problems: Array<{ file: string; line: number; reason: string }>) {
    super(problems.map((p) => `${p.file}:${p.line}: ${p.reason}`).join("\n"));
    this.name = "IngestError";
  }
}

const decimal = (name: string) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const s = String(v).trim();
    if (!/^-?\d+(\.\d+)?$/.test(s)) {
      ctx.addIssue({ code: "custom", message: `${name} is not a decimal number` });
      return z.NEVER;
    }
    return s;
  });

const probability = (name: string) =>
  decimal(name).refine((s) => Number(s) >= 0 && Number(s) <= 1, { message: `${name} is outside [0, 1]` });

const row = z
  .object({
    observedAt: z
      .string()
      .refine((s) => !Number.isNaN(Date.parse(s)), { message: "observedAt is not an ISO 8601 timestamp" }),
    conditionId: z.string().min(1, "conditionId is missing"),
    legKey: z.string().nullish(),
    label: z.string().min(1, "label is missing"),
    bestBid: probability("bestBid"),
    bestAsk: probability("bestAsk"),
    mid: probability("mid"),
    depthUsd: decimal("depthUsd").refine((s) => Number(s) >= 0, { message: "depthUsd is negative" }),
    settlementDate: z.string().nullish(),
    resolved: z.union([z.boolean(), z.enum(["true", "false", ""])]).nullish(),
    outcome: z.union([z.literal(0), z.literal(1), z.enum(["0", "1", ""])]).nullish(),
    venue: z.enum(["polymarket", "kalshi"], { message: "venue is neither polymarket nor kalshi" }).nullish(),
    eventKey: z.string().nullish(),
    // JSONL: an array; CSV: slugs separated by `;`
    tags: z.union([z.array(z.string()), z.string()]).nullish(),
    series: z.string().nullish(),
  })
  .refine((r) => Number(r.bestBid) <= Number(r.bestAsk), { message: "bestBid is above bestAsk" });

const REQUIRED = ["observedAt", "conditionId", "label", "bestBid", "bestAsk", "mid", "depthUsd"] as const;

/** Parses a JSONL or CSV file (by extension); every problem is reported with its line. */
export function readSnapshots(file: string, text: string): SnapshotRow[] {
  const problems: Array<{ file: string; line: number; reason: string }> = [];
  const raw: Array<{ line: number; value: Record<string, unknown> }> = [];
  if (/\.csv$/i.test(file)) {
    const records = parse(text, { columns: true, skip_empty_lines: true, info: true, trim: true }) as Array<{
      record: Record<string, string>;
      info: { lines: number };
    }>;
    for (const r of records)
      raw.push({
        line: r.info.lines,
        value: Object.fromEntries(Object.entries(r.record).map(([k, v]) => [k, v === "" ? null : v])),
      });
  } else {
    text.split(/\r?\n/).forEach((l, i) => {
      if (!l.trim()) return;
      try {
        raw.push({ line: i + 1, value: JSON.parse(l) as Record<string, unknown> });
      } catch {
        problems.push({ file, line: i + 1, reason: "not a JSON object" });
      }
    });
  }
  const rows: SnapshotRow[] = [];
  for (const { line, value } of raw) {
    const missing = REQUIRED.filter((k) => value[k] === undefined || value[k] === null || value[k] === "");
    if (missing.length) {
      problems.push({ file, line, reason: `missing field ${missing.join(", ")}` });
      continue;
    }
    const parsed = row.safeParse(value);
    if (!parsed.success) {
      problems.push({ file, line, reason: parsed.error.issues[0]?.message ?? "invalid row" });
      continue;
    }
    const r = parsed.data;
    rows.push({
      line,
      observedAt: new Date(r.observedAt),
      conditionId: r.conditionId,
      legKey: r.legKey ?? null,
      label: r.label,
      bestBid: r.bestBid,
      bestAsk: r.bestAsk,
      mid: r.mid,
      depthUsd: r.depthUsd,
      settlementDate: r.settlementDate ? new Date(r.settlementDate) : null,
      resolved: r.resolved === true || r.resolved === "true",
      outcome: r.outcome === 1 || r.outcome === "1" ? 1 : r.outcome === 0 || r.outcome === "0" ? 0 : null,
      venue: r.venue ?? null,
      eventKey: r.eventKey ?? null,
      tags: (Array.isArray(r.tags) ? r.tags : (r.tags ?? "").split(";")).map((t) => t.trim()).filter(Boolean),
      series: r.series ?? null,
    });
  }
  if (problems.length) throw new IngestError(problems);
  return rows;
}
