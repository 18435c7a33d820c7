import { execFile } from "node:child_process";
import type { FakeVenues, KalshiEvent, PolyEvent } from "../../support/fake-venues";

// The catalog entries, venue listings and CLI runs the venue tests share: each test names only
// what differs (its dates, a ticker, a rule).

/** An entry's dates: the base date, and the launch when its history before it is back-calculated. */
export interface EntryDates {
  inceptionAt: Date;
  launchAt?: Date;
}

const dates = (d: EntryDates) => ({
  inceptionAt: d.inceptionAt.toISOString(),
  ...(d.launchAt ? { launchAt: d.launchAt.toISOString() } : {}),
});

/** The catalog's Polymarket index over the tag "crypto" (PMX-BTC), with `over` replacing any field. */
export const cryptoIndex = (d: EntryDates, over: Record<string, unknown> = {}) => ({
  ticker: "PMX-BTC",
  name: "BTC Price Markets Index",
  description: "Open Polymarket markets tagged crypto.",
  ...dates(d),
  maturityType: "PERPETUAL",
  universe: { venue: "polymarket", tagSlugs: ["crypto"] },
  ...over,
});

/** The catalog's Kalshi index over the series KXCPI (KX-CPI), with `over` replacing any field. */
export const cpiIndex = (d: EntryDates, over: Record<string, unknown> = {}) => ({
  ticker: "KX-CPI",
  name: "Kalshi CPI Index",
  description: "Open Kalshi CPI markets.",
  ...dates(d),
  maturityType: "PERPETUAL",
  universe: { venue: "kalshi", seriesTickers: ["KXCPI"] },
  ...over,
});

/** The catalog's volatility series on Polymarket's December Fed decision (PMV-FEDDEC). */
export const fedVolatility = (d: EntryDates, over: Record<string, unknown> = {}) => ({
  ticker: "PMV-FEDDEC",
  slug: "fed-december",
  name: "Fed December Volatility",
  description: "Expected movement of the probabilities of the December Fed decision.",
  category: "macro",
  venue: "polymarket",
  event: "fed-decision-december",
  ...dates(d),
  tenorsDays: [7, 30],
  headlineTenorDays: 30,
  relatedIndexTickers: [],
  ...over,
});

/** A Gamma event tagged crypto with one market: `0x<slug>`, YES token `tok-<slug>` unless given. */
export const cryptoEvent = (slug: string, end: string, yesToken = `tok-${slug}`): PolyEvent => ({
  slug,
  title: `BTC ${slug}`,
  negRisk: false,
  tags: ["crypto"],
  endDate: end,
  markets: [{ conditionId: `0x${slug}`, question: `Will BTC reach ${slug}?`, yesToken, endDate: end }],
});

/** A Kalshi KXCPI event `KXCPI-<x>` with one active market `KXCPI-<x>-T3`. */
export const cpiEvent = (x: string, end: string): KalshiEvent => ({
  event_ticker: `KXCPI-${x}`,
  series_ticker: "KXCPI",
  title: `CPI ${x}`,
  mutually_exclusive: false,
  markets: [{ ticker: `KXCPI-${x}-T3`, title: `CPI ${x} above 3%?`, status: "active", close_time: end }],
});

/** The environment of a CLI run against the local venues, without the demo; `extra` adds or replaces settings. */
export const venueEnv = (fake: FakeVenues, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  REDIS_URL: "",
  DEMO_MARKET: "0",
  POLYMARKET_GAMMA_URL: fake.gammaUrl,
  POLYMARKET_CLOB_URL: fake.clobUrl,
  KALSHI_API_URL: fake.kalshiUrl,
  ...extra,
});

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a script of the project under tsx with the environment `env` gives at each call.
 * Asynchronous: the fake venues answer from this process, so it must not block while a CLI runs.
 */
export const tsxCli =
  (env: () => NodeJS.ProcessEnv) =>
  (script: string, args: string[], extra: Record<string, string> = {}): Promise<CliRun> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", script, ...args],
        { env: { ...env(), ...extra }, encoding: "utf8" },
        (error, stdout, stderr) =>
          resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
