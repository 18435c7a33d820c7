import { config, parseConfig } from "@/lib/config";
import { createVenues, venueEndpoints, type CommandIo, type VenueEndpoints } from "./connect";
import { formatSearchTable, SEARCH_DEFAULTS, searchVenues } from "./search";
import type { VenueName } from "./types";

export const VENUES_USAGE =
  "usage: npm run venues -- search WORDS... [--venue polymarket|kalshi] [--limit N]\n       npm run venues -- doctor";

/**
 * `venues search WORDS`: the tags, events and series of each venue that match, as a table. Exit 0
 * when at least one venue answered (a failing venue is one line on stderr), 1 when none did, 2 on
 * bad usage.
 */
export async function venuesCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const [verb, ...rest] = argv;
  const flags = new Map<string, string>();
  const words: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (!a.startsWith("--")) words.push(a);
    else if (a.includes("=")) flags.set(a.slice(2, a.indexOf("=")), a.slice(a.indexOf("=") + 1));
    else flags.set(a.slice(2), rest[++i] ?? "");
  }
  const venue = flags.get("venue");
  const limit = Number(flags.get("limit") ?? SEARCH_DEFAULTS.limit);
  const unknown = [...flags.keys()].filter((f) => f !== "venue" && f !== "limit");
  const problem =
    verb !== "search"
      ? `unknown command ${JSON.stringify(verb ?? "")}`
      : words.join(" ").trim().length < 2
        ? "give the words to search for (at least 2 characters)"
        : unknown.length
          ? `unknown option --${unknown[0]}`
          : venue !== undefined && venue !== "polymarket" && venue !== "kalshi"
            ? `--venue must be polymarket or kalshi, got ${JSON.stringify(venue)}`
            : !Number.isInteger(limit) || limit < 1 || limit > 100
              ? "--limit must be a whole number from 1 to 100"
              : null;
  if (problem) {
    io.err(`venues: ${problem}\n${VENUES_USAGE}\n`);
    return 2;
  }
  let endpoints: VenueEndpoints;
  try {
    endpoints = { ...venueEndpoints(io.env ? parseConfig(io.env) : config()), ...io.endpoints };
  } catch (error) {
    io.err(`venues: ${(error as Error).message}\n`);
    return 2;
  }
  const wanted = (v: VenueName) => venue === undefined || venue === v;
  const venues = createVenues(endpoints);
  const results = await searchVenues(
    words.join(" "),
    {
      ...(wanted("polymarket")
        ? { polymarket: { http: venues.http("polymarket"), gammaUrl: endpoints.polymarketGammaUrl } }
        : {}),
      ...(wanted("kalshi") ? { kalshi: { http: venues.http("kalshi"), apiUrl: endpoints.kalshiApiUrl } } : {}),
    },
    { ...SEARCH_DEFAULTS, limit },
  );
  for (const r of results) if (r.problem) io.err(`${r.venue}: search failed: ${r.problem}\n`);
  const answered = results.filter((r) => r.problem === null);
  if (answered.length === 0) return 1;
  io.out(formatSearchTable(answered));
  return 0;
}
