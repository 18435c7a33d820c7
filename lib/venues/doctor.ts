import type { z } from "zod";
import { VenueHttp, type DriftFinding } from "./http";
import { KALSHI_ENDPOINTS } from "./kalshi";
import { POLY_ENDPOINTS } from "./polymarket";
import * as S from "./schemas";
import type { VenueName } from "./types";

// `npm run venues -- doctor`: one read of every endpoint the catalog in force uses, each through
// the schema the connectors read it with (lib/venues/schemas.ts), as a table: the endpoint, its
// status, whether its shape is the one relied on (or what differs), and any deprecation / sunset /
// warning header. Drift (a shape that differs, such a header, a 404 or 410) makes the exit code 1.

/** What the catalog in force asks of each venue: selectors' values and series' events. */
export interface DoctorTargets {
  polymarket: { tags: string[]; events: string[] };
  kalshi: { series: string[]; events: string[] };
}

export interface DoctorRow {
  endpoint: string;
  /** "200", "HTTP 410", "unreachable (…)", or "skipped (…)" */
  status: string;
  /** "OK", or what differs */
  shape: string;
  /** the deprecation headers seen, or "-" */
  headers: string;
  drift: boolean;
  failed: boolean;
}

export interface DoctorUrls {
  polymarketGammaUrl: string;
  polymarketClobUrl: string;
  kalshiApiUrl: string;
  timeoutMs: number;
}

/** One probe: a fresh client (so its drift and raw are this read's), one attempt, read through `schema`. */
async function probe<T>(
  urls: DoctorUrls,
  venue: VenueName,
  endpoint: string,
  url: string,
  schema: z.ZodType<T>,
  post?: unknown,
): Promise<{ row: DoctorRow; body: T | null }> {
  const http = new VenueHttp({ venue, concurrency: 1, timeoutMs: urls.timeoutMs, attempts: 1 });
  let body: T | null = null;
  let error: string | null = null;
  try {
    body = await http.read(url, schema, { endpoint, ...(post === undefined ? {} : { post }) });
  } catch (e) {
    error = (e as Error).message;
  }
  const raw = http.raw.at(-1);
  const of = (field: (f: DriftFinding) => boolean) => http.drift.filter(field);
  const shape = of((f) => f.field !== "headers" && f.field !== "status").map(
    (f) => `differs at ${f.field}: ${f.detail.replace(/^unexpected shape: /, "")}`,
  );
  const headers = of((f) => f.field === "headers").map((f) => f.detail);
  const status = !raw
    ? "no answer"
    : raw.status === 0
      ? raw.body
      : raw.status >= 200 && raw.status < 300
        ? String(raw.status)
        : `HTTP ${raw.status}`;
  const row: DoctorRow = {
    endpoint,
    status,
    shape: shape.length ? shape.join("; ") : body !== null ? "OK" : "-",
    headers: headers.length ? headers.join("; ") : "-",
    drift: http.drift.length > 0,
    failed: body === null && error !== null,
  };
  return { row, body };
}

const skipped = (endpoint: string, why: string): DoctorRow => ({
  endpoint,
  status: `skipped (${why})`,
  shape: "-",
  headers: "-",
  drift: false,
  failed: false,
});

/** Polymarket's probes: the keyset lists, an event, a market, its book and its history (single and batch). */
async function polymarketRows(urls: DoctorUrls, t: DoctorTargets["polymarket"], now: Date): Promise<DoctorRow[]> {
  const enc = encodeURIComponent;
  const rows: DoctorRow[] = [];
  let sample: { conditionId: string; token: string } | null = null;
  const take = (
    markets: ReadonlyArray<{ conditionId: string; clobTokenIds?: string | string[] | null }> | null | undefined,
  ) => {
    for (const m of markets ?? []) {
      const ids = typeof m.clobTokenIds === "string" ? (JSON.parse(m.clobTokenIds) as unknown) : m.clobTokenIds;
      if (!sample && Array.isArray(ids) && typeof ids[0] === "string")
        sample = { conditionId: m.conditionId, token: ids[0] };
    }
  };
  if (t.tags.length) {
    const r = await probe(
      urls,
      "polymarket",
      POLY_ENDPOINTS.eventsKeyset,
      `${urls.polymarketGammaUrl}/events/keyset?tag_slug=${enc(t.tags[0]!)}&closed=false&limit=5`,
      S.gammaEventsPage,
    );
    rows.push(r.row);
    r.body?.events.forEach((e) => take(e.markets));
  }
  if (t.events.length) {
    const r = await probe(
      urls,
      "polymarket",
      POLY_ENDPOINTS.eventBySlug,
      `${urls.polymarketGammaUrl}/events/slug/${enc(t.events[0]!)}`,
      S.gammaEvent,
    );
    rows.push(r.row);
    take(r.body?.markets);
  }
  const s = sample as { conditionId: string; token: string } | null;
  if (!s)
    return [
      ...rows,
      ...[
        POLY_ENDPOINTS.marketsKeyset,
        POLY_ENDPOINTS.books,
        POLY_ENDPOINTS.pricesHistory,
        POLY_ENDPOINTS.batchPricesHistory,
      ].map((e) => skipped(e, "no market listed to probe with")),
    ];
  const end = Math.floor(now.getTime() / 1000);
  rows.push(
    (
      await probe(
        urls,
        "polymarket",
        POLY_ENDPOINTS.marketsKeyset,
        `${urls.polymarketGammaUrl}/markets/keyset?condition_ids=${enc(s.conditionId)}&closed=false&limit=1`,
        S.gammaMarketsPage,
      )
    ).row,
  );
  rows.push(
    (
      await probe(urls, "polymarket", POLY_ENDPOINTS.books, `${urls.polymarketClobUrl}/books`, S.clobBooks, [
        { token_id: s.token },
      ])
    ).row,
  );
  rows.push(
    (
      await probe(
        urls,
        "polymarket",
        POLY_ENDPOINTS.pricesHistory,
        `${urls.polymarketClobUrl}/prices-history?market=${enc(s.token)}&startTs=${end - 86_400}&endTs=${end}&fidelity=60`,
        S.clobHistory,
      )
    ).row,
  );
  rows.push(
    (
      await probe(
        urls,
        "polymarket",
        POLY_ENDPOINTS.batchPricesHistory,
        `${urls.polymarketClobUrl}/batch-prices-history`,
        S.clobBatchHistory,
        { markets: [s.token], start_ts: end - 86_400, end_ts: end, fidelity: 60 },
      )
    ).row,
  );
  return rows;
}

/** Kalshi's probes: events of a series, an event, a market, its book and candlesticks, and the historical tier. */
async function kalshiRows(urls: DoctorUrls, t: DoctorTargets["kalshi"], now: Date): Promise<DoctorRow[]> {
  const enc = encodeURIComponent;
  const api = urls.kalshiApiUrl;
  const rows: DoctorRow[] = [];
  let sample: { ticker: string; series: string | null } | null = null;
  if (t.series.length) {
    const r = await probe(
      urls,
      "kalshi",
      KALSHI_ENDPOINTS.events,
      `${api}/events?series_ticker=${enc(t.series[0]!)}&status=open&with_nested_markets=true&limit=5`,
      S.kalshiEventsPage,
    );
    rows.push(r.row);
    const m = r.body?.events.flatMap((e) => e.markets ?? [])[0];
    if (m) sample = { ticker: m.ticker, series: t.series[0]! };
  }
  if (t.events.length) {
    const r = await probe(
      urls,
      "kalshi",
      KALSHI_ENDPOINTS.event,
      `${api}/events/${enc(t.events[0]!)}?with_nested_markets=true`,
      S.kalshiEventAnswer,
    );
    rows.push(r.row);
    const m = r.body?.event.markets?.[0] ?? r.body?.markets?.[0];
    if (!sample && m) sample = { ticker: m.ticker, series: r.body?.event.series_ticker ?? null };
  }
  rows.push((await probe(urls, "kalshi", KALSHI_ENDPOINTS.cutoff, `${api}/historical/cutoff`, S.kalshiCutoff)).row);
  if (t.series.length)
    rows.push(
      (
        await probe(
          urls,
          "kalshi",
          KALSHI_ENDPOINTS.historicalMarkets,
          `${api}/historical/markets?series_ticker=${enc(t.series[0]!)}&limit=1`,
          S.kalshiMarketsPage,
        )
      ).row,
    );
  const s = sample as { ticker: string; series: string | null } | null;
  const perMarket = [
    KALSHI_ENDPOINTS.market,
    KALSHI_ENDPOINTS.orderbook,
    KALSHI_ENDPOINTS.candlesticks,
    KALSHI_ENDPOINTS.batchCandlesticks,
  ];
  if (!s) return [...rows, ...perMarket.map((e) => skipped(e, "no market listed to probe with"))];
  const end = Math.floor(now.getTime() / 1000);
  const span = `start_ts=${end - 86_400}&end_ts=${end}&period_interval=60`;
  rows.push(
    (await probe(urls, "kalshi", KALSHI_ENDPOINTS.market, `${api}/markets/${enc(s.ticker)}`, S.kalshiMarketAnswer)).row,
  );
  rows.push(
    (
      await probe(
        urls,
        "kalshi",
        KALSHI_ENDPOINTS.orderbook,
        `${api}/markets/${enc(s.ticker)}/orderbook`,
        S.kalshiOrderbook,
      )
    ).row,
  );
  if (s.series)
    rows.push(
      (
        await probe(
          urls,
          "kalshi",
          KALSHI_ENDPOINTS.candlesticks,
          `${api}/series/${enc(s.series)}/markets/${enc(s.ticker)}/candlesticks?${span}`,
          S.kalshiCandles,
        )
      ).row,
    );
  rows.push(
    (
      await probe(
        urls,
        "kalshi",
        KALSHI_ENDPOINTS.batchCandlesticks,
        `${api}/markets/candlesticks?market_tickers=${enc(s.ticker)}&${span}`,
        S.kalshiBatchCandles,
      )
    ).row,
  );
  return rows;
}

/** Reads every endpoint the targets use, once each. */
export async function venueDoctor(urls: DoctorUrls, targets: DoctorTargets, now = new Date()): Promise<DoctorRow[]> {
  const poly =
    targets.polymarket.tags.length + targets.polymarket.events.length > 0
      ? polymarketRows(urls, targets.polymarket, now)
      : Promise.resolve([]);
  const kalshi =
    targets.kalshi.series.length + targets.kalshi.events.length > 0
      ? kalshiRows(urls, targets.kalshi, now)
      : Promise.resolve([]);
  return [...(await poly), ...(await kalshi)];
}

/** The rows as a table, and a last line saying whether anything drifted. */
export function formatDoctor(rows: readonly DoctorRow[]): string {
  if (rows.length === 0) return "the catalog in force names no venue: nothing to check\n";
  const table = [
    ["ENDPOINT", "STATUS", "SHAPE", "DEPRECATION HEADERS"],
    ...rows.map((r) => [r.endpoint, r.status, r.shape, r.headers]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
  const drift = rows.filter((r) => r.drift).length;
  const failed = rows.filter((r) => r.failed && !r.drift).length;
  const verdict =
    drift || failed
      ? `DRIFT: ${drift} endpoint(s) changed${failed ? `, ${failed} did not answer` : ""}`
      : `OK: ${rows.filter((r) => !r.status.startsWith("skipped")).length} endpoint(s) answer as the connectors rely on`;
  return `${lines.join("\n")}\n\n${verdict}\n`;
}
