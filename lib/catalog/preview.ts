import Decimal from "decimal.js";
import { daysToSettlement, entryBlock, type EntryBlock } from "@/lib/engine/eligibility";
import { floorHour } from "@/lib/engine/time-format";
import type { EligibilityRule, MarketInfo, Snapshot } from "@/lib/engine/types";
import { evaluateGates, type GateLeg } from "@/lib/engine/volatility/gates";
import type { Quote } from "@/lib/venues/book";
import type { VenueConnector, VenueMarket, VenueName } from "@/lib/venues/types";
import { eligibilityRule, gatesOf, universeSelectors } from "./compile";
import type { Catalog, CatalogIndex, CatalogSeries } from "./schema";

// What a catalog would select if applied now, read from the venues only (no database): each index's
// markets with the engine's own entry verdict (lib/engine/eligibility), each volatility series'
// legs with the engine's per-leg publication gates (lib/engine/volatility/gates).

export interface MarketVerdict {
  /** the Polymarket condition id, the Kalshi market ticker */
  id: string;
  label: string;
  settles: string | null;
  days: number | null;
  quote: Quote | null;
  /** null: the market would enter the index */
  excludedBecause: string | null;
}

export interface IndexPreview {
  ticker: string;
  venue: string;
  selectors: string[];
  rule: EligibilityRule;
  markets: MarketVerdict[];
  problems: string[];
}

export interface LegPreview {
  legKey: string;
  label: string;
  settles: string | null;
  quote: Quote | null;
  resolved: boolean;
  /** the legs' failing publication gates, as the series' public flags word them */
  failing: string[];
}

export interface SeriesPreview {
  ticker: string;
  venue: string;
  event: string;
  title: string | null;
  settlementDate: string | null;
  legs: LegPreview[];
  /** whole-partition flags (overround, arbitrage) */
  flags: string[];
  problems: string[];
}

export interface CatalogPreview {
  at: Date;
  indices: IndexPreview[];
  series: SeriesPreview[];
  /** entries of the demo's venue: the server generates their markets, nothing to read */
  demoEntries: string[];
}

export type ConnectorFor = (venue: VenueName) => VenueConnector;

const dateOnly = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);
const money = (d: Decimal | number) => new Decimal(d).toFixed(2);
const days1 = (n: number) => n.toFixed(1);

/** The engine's entry verdict in words, with the figures that decided it. */
export function describeBlock(
  block: EntryBlock,
  rule: EligibilityRule,
  market: MarketInfo,
  snapshot: Snapshot | undefined,
  t: Date,
  noQuote: string | null,
): string {
  const days = snapshot ? daysToSettlement(market, snapshot, t) : null;
  switch (block) {
    case "outside-universe":
      return "not listed under the universe's selectors";
    case "event-prefix":
      return `event ${market.eventKey ?? ""} is outside the universe`;
    case "partition-leg":
      return "a leg of a mutually exclusive event (eligibility.includePartitionLegs is false)";
    case "not-listed-yet":
      return "not listed yet";
    case "settled":
      return `settlement date ${dateOnly(market.settlementDate)} has passed`;
    case "no-quote":
      return `no quote: ${noQuote ?? "no book read"}`;
    case "resolved":
      return `resolved ${snapshot?.outcome === 1 ? "YES" : "NO"}`;
    case "quote-after-t":
      return "quote taken after this hour";
    case "depth":
      return `depth $${money(snapshot!.depthUsd)} below minDepthUsd $${money(rule.minDepthUsd ?? 0)}`;
    case "spread":
      return `spread ${snapshot!.bestAsk.minus(snapshot!.bestBid).toString()} above maxSpread ${rule.maxSpread}`;
    case "too-close-to-settlement":
      return `settles in ${days1(days ?? 0)} days, fewer than minDaysToSettlement ${rule.minDaysToSettlement}`;
    case "too-far-from-settlement":
      return `settles in ${days1(days ?? 0)} days, more than maxDaysToSettlement ${rule.maxDaysToSettlement}`;
    case "stale":
      return "quote older than stalenessLimitSeconds";
  }
}

const infoOf = (m: VenueMarket, listedAt: Date): MarketInfo => ({
  conditionId: m.conditionId,
  label: m.label,
  legKey: m.legKey,
  eventKey: m.eventKey,
  theme: "",
  settlementDate: m.settlementDate,
  listedAt,
  selectors: m.selectors,
});

const snapshotOf = (m: VenueMarket, q: Quote | null, t: Date): Snapshot | undefined => {
  const base = {
    observedAt: t,
    conditionId: m.conditionId,
    legKey: m.legKey,
    label: m.label,
    settlementDate: m.settlementDate,
  };
  if (m.resolved) {
    const p = new Decimal(m.outcome ?? 0);
    return { ...base, bestBid: p, bestAsk: p, mid: p, depthUsd: new Decimal(0), resolved: true, outcome: m.outcome };
  }
  return q
    ? {
        ...base,
        bestBid: q.bestBid,
        bestAsk: q.bestAsk,
        mid: q.mid,
        depthUsd: q.depthUsd,
        resolved: false,
        outcome: null,
      }
    : undefined;
};

/** Books of the markets the collector would read (open ones), by condition id; problems by id otherwise. */
async function readBooks(connector: VenueConnector, markets: readonly VenueMarket[]) {
  const quotes = new Map<string, Quote>();
  const missing = new Map<string, string>();
  for (const m of markets)
    if (m.closed && !m.resolved) missing.set(m.conditionId, "closed for trading, awaiting resolution");
  const open = markets.filter((m) => !m.closed && !m.resolved);
  for (const r of await connector.books(open)) {
    if ("quote" in r) quotes.set(r.conditionId, r.quote);
    else missing.set(r.conditionId, r.problem);
  }
  return { quotes, missing };
}

async function previewIndex(ix: CatalogIndex, connector: VenueConnector, t: Date): Promise<IndexPreview> {
  const rule = eligibilityRule(ix);
  const selectors = universeSelectors(ix.universe);
  const out: IndexPreview = { ticker: ix.ticker, venue: ix.universe.venue, selectors, rule, markets: [], problems: [] };
  const found = await connector.discover(selectors);
  out.problems.push(...found.problems);
  const { quotes, missing } = await readBooks(connector, found.markets);
  for (const m of found.markets) {
    // A market first seen this hour is listed at this hour, as the collector records it.
    const info = infoOf(m, t);
    const quote = quotes.get(m.conditionId) ?? null;
    const snapshot = snapshotOf(m, quote, t);
    const block = entryBlock(rule, info, snapshot, t, ix.stalenessLimitSeconds);
    out.markets.push({
      id: m.conditionId.replace(/^kalshi:/, ""),
      label: m.label,
      settles: dateOnly(m.settlementDate),
      days: snapshot
        ? daysToSettlement(info, snapshot, t)
        : m.settlementDate
          ? (m.settlementDate.getTime() - t.getTime()) / 86_400_000
          : null,
      quote,
      excludedBecause:
        block === null ? null : describeBlock(block, rule, info, snapshot, t, missing.get(m.conditionId) ?? null),
    });
  }
  // Entrants first, then the rest; each group by settlement, then label.
  out.markets.sort(
    (a, b) =>
      Number(a.excludedBecause !== null) - Number(b.excludedBecause !== null) ||
      (a.settles ?? "9").localeCompare(b.settles ?? "9") ||
      a.label.localeCompare(b.label),
  );
  return out;
}

async function previewSeries(s: CatalogSeries, connector: VenueConnector, t: Date): Promise<SeriesPreview> {
  const out: SeriesPreview = {
    ticker: s.ticker,
    venue: s.venue,
    event: s.event,
    title: null,
    settlementDate: s.settlementDate,
    legs: [],
    flags: [],
    problems: [],
  };
  let event;
  try {
    event = await connector.event(s.event);
  } catch (error) {
    out.problems.push((error as Error).message);
    return out;
  }
  if (!event) {
    out.problems.push(`${s.venue} event ${s.event}: not found`);
    return out;
  }
  out.title = event.title;
  out.settlementDate = s.settlementDate ?? event.settlementDate;
  const { quotes, missing } = await readBooks(connector, event.legs);
  const gateLegs: GateLeg[] = event.legs.map((m) => {
    const q = quotes.get(m.conditionId);
    return {
      legKey: m.legKey ?? m.conditionId,
      label: m.label,
      bid: q?.bestBid.toNumber() ?? 0,
      ask: q?.bestAsk.toNumber() ?? 0,
      mid: q?.mid.toNumber() ?? 0,
      depthUsd: q?.depthUsd.toNumber() ?? 0,
      observedAt: q || m.resolved ? t : null,
      resolved: m.resolved,
      // Budget shares and impact come from the computation itself; the preview gates what a book shows.
      budgetShare: 0,
      impactPts: 0,
    };
  });
  // the gates sum the quoted legs' mids themselves, in exact decimal (a resolved leg at its quote)
  const gates = evaluateGates({
    gates: gatesOf(s),
    t,
    legs: gateLegs,
    devigGap: null,
    pythagorean: [],
    identity: null,
  });
  out.flags = [
    ...(event.legs.length < 2
      ? [`the venue lists ${event.legs.length} outcome(s); the collector sets the legs once it lists at least 2`]
      : []),
    ...gates.flags.filter((f) => f.legKey === null).map((f) => f.publicDetail),
  ];
  out.legs = event.legs.map((m, i) => ({
    legKey: gateLegs[i]!.legKey,
    label: m.label,
    settles: dateOnly(m.settlementDate),
    quote: quotes.get(m.conditionId) ?? null,
    resolved: m.resolved,
    failing: [
      ...(missing.has(m.conditionId) ? [`no quote: ${missing.get(m.conditionId)}`] : []),
      ...gates.flags
        .filter((f) => f.legKey === gateLegs[i]!.legKey && f.gate !== "leg_missing")
        .map((f) => f.publicDetail),
    ],
  }));
  return out;
}

/** Reads the venues for every entry of a catalog; a venue that fails is reported on its entries. */
export async function previewCatalog(
  catalog: Catalog,
  connectorFor: ConnectorFor,
  now = new Date(),
): Promise<CatalogPreview> {
  const t = floorHour(now);
  const connectors = new Map<VenueName, VenueConnector>();
  const conn = (v: VenueName) => connectors.get(v) ?? connectors.set(v, connectorFor(v)).get(v)!;
  const demoEntries = [
    ...catalog.indices.filter((ix) => ix.universe.venue === "demo").map((ix) => ix.ticker),
    ...catalog.volatility.filter((s) => s.venue === "demo").map((s) => s.ticker),
  ];
  const guard = async <T extends { problems: string[] }>(blank: T, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      return { ...blank, problems: [...blank.problems, (error as Error).message.split("\n")[0]!] };
    }
  };
  const [indices, series] = await Promise.all([
    Promise.all(
      catalog.indices.flatMap((ix) => {
        const venue = ix.universe.venue;
        if (venue === "demo") return [];
        return [
          guard(
            {
              ticker: ix.ticker,
              venue,
              selectors: universeSelectors(ix.universe),
              rule: eligibilityRule(ix),
              markets: [],
              problems: [],
            },
            () => previewIndex(ix, conn(venue), t),
          ),
        ];
      }),
    ),
    Promise.all(
      catalog.volatility.flatMap((s) => {
        const venue = s.venue;
        if (venue === "demo") return [];
        return [
          guard(
            {
              ticker: s.ticker,
              venue,
              event: s.event,
              title: null,
              settlementDate: s.settlementDate,
              legs: [],
              flags: [],
              problems: [],
            } as SeriesPreview,
            () => previewSeries(s, conn(venue), t),
          ),
        ];
      }),
    ),
  ]);
  return { at: t, indices, series, demoEntries };
}

function table(rows: string[][], rightAligned: ReadonlySet<number>): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    `    ${r.map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ")}`.trimEnd(),
  );
}

const cut = (s: string, n = 48) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const px = (d: Decimal | undefined) => (d === undefined ? "-" : d.toFixed(4).replace(/0{1,2}$/, ""));

function ruleLine(r: EligibilityRule): string {
  const days = `${r.minDaysToSettlement ?? 0}..${r.maxDaysToSettlement ?? "∞"}`;
  return `minDepthUsd ${r.minDepthUsd ?? 0}, maxSpread ${r.maxSpread ?? 1}, daysToSettlement ${days}, partition legs ${r.includePartitionLegs ? "included" : "excluded"}`;
}

/** The preview as text: per index its markets and verdicts, per series its legs and gates. */
export function formatPreview(p: CatalogPreview): string {
  const lines = [`Preview at ${p.at.toISOString()} (what applying the catalog would select this hour)`];
  for (const ix of p.indices) {
    const entering = ix.markets.filter((m) => m.excludedBecause === null).length;
    lines.push(
      "",
      `index ${ix.ticker} (${ix.venue}: ${ix.selectors.map((s) => s.split(":").slice(1).join(" ")).join(", ")})`,
      `  eligibility: ${ruleLine(ix.rule)}`,
    );
    lines.push(
      `  ${entering} of ${ix.markets.length} market(s) would enter${entering === 0 && ix.markets.length > 0 ? " (an empty basket: nothing is published until one enters)" : ""}`,
    );
    if (ix.markets.length > 0)
      lines.push(
        ...table(
          [
            ["VERDICT", "MARKET", "ID", "SETTLES", "DAYS", "BID", "ASK", "DEPTH USD", "REASON"],
            ...ix.markets.map((m) => [
              m.excludedBecause === null ? "enters" : "excluded",
              cut(m.label),
              cut(m.id, 20),
              m.settles ?? "-",
              m.days === null ? "-" : days1(m.days),
              px(m.quote?.bestBid),
              px(m.quote?.bestAsk),
              m.quote ? money(m.quote.depthUsd) : "-",
              m.excludedBecause ?? "",
            ]),
          ],
          new Set([4, 5, 6, 7]),
        ),
      );
    for (const problem of ix.problems) lines.push(`  venue problem: ${problem}`);
  }
  for (const s of p.series) {
    lines.push("", `volatility ${s.ticker} (${s.venue} event ${s.event}${s.title ? `: "${s.title}"` : ""})`);
    if (s.title !== null) lines.push(`  ${s.legs.length} leg(s), settlement ${s.settlementDate ?? "unknown"}`);
    if (s.legs.length > 0)
      lines.push(
        ...table(
          [
            ["LEG", "MARKET", "SETTLES", "BID", "ASK", "MID", "DEPTH USD", "GATES"],
            ...s.legs.map((l) => [
              l.legKey,
              cut(l.label),
              l.settles ?? "-",
              px(l.quote?.bestBid),
              px(l.quote?.bestAsk),
              px(l.quote?.mid),
              l.quote ? money(l.quote.depthUsd) : "-",
              l.resolved ? "resolved" : l.failing.length ? l.failing.join(" ") : "pass",
            ]),
          ],
          new Set([3, 4, 5, 6]),
        ),
      );
    for (const f of s.flags) lines.push(`  flag: ${f}`);
    for (const problem of s.problems) lines.push(`  venue problem: ${problem}`);
  }
  if (p.series.some((s) => s.legs.length > 0))
    lines.push(
      "",
      "Leg gates shown: quote, depth floor, spread to mid; the impact gate needs the computation and is applied once collecting.",
    );
  if (p.demoEntries.length)
    lines.push(
      "",
      `${p.demoEntries.join(", ")}: the demo's venue; the server generates these markets, nothing to read.`,
    );
  return `${lines.join("\n")}\n`;
}

/** Whether every entry was read in full. */
export const previewComplete = (p: CatalogPreview) => [...p.indices, ...p.series].every((e) => e.problems.length === 0);
