import "server-only";
import type { Db } from "@/lib/db";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
export const HOURS = 24;
export const DAYS = 30;
export const TOP_ENDPOINTS = 10;

/** Requests in one bucket, by the status classes metering records. */
export interface UsageCounts {
  success: number;
  clientError: number;
  rateLimited: number;
  serverError: number;
  total: number;
}

export interface UsageBucket extends UsageCounts {
  /** Start of the hour or UTC day, ISO 8601. */
  start: string;
}

export interface EndpointUsage extends UsageCounts {
  endpoint: string;
}

export interface KeyUsage {
  /** The last 24 hours, oldest first; the last bucket is the current (partial) hour. */
  hourly: UsageBucket[];
  /** The last 30 UTC days, oldest first; the last bucket is today. */
  daily: UsageBucket[];
  /** Most used endpoints over the 30 days, busiest first. */
  endpoints: EndpointUsage[];
  totals: { last24h: UsageCounts; last30d: UsageCounts };
  generatedAt: string;
}

function empty(): UsageCounts {
  return { success: 0, clientError: 0, rateLimited: 0, serverError: 0, total: 0 };
}

/** Adds `count` requests of one metering status class ('2xx' | '4xx' | '429' | '5xx'). */
function add(into: UsageCounts, statusClass: string, count: number): void {
  if (statusClass === "2xx") into.success += count;
  else if (statusClass === "429") into.rateLimited += count;
  else if (statusClass === "5xx") into.serverError += count;
  else into.clientError += count;
  into.total += count;
}

function floorHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

function floorDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * Usage of one key of one account, straight from usage_counters (what the API metered), so the
 * portal's numbers are the API's. The owner is part of every query: another account's key id
 * yields nothing.
 */
export async function keyUsage(prisma: Db, keyId: string, userId: string, now = new Date()): Promise<KeyUsage> {
  const hourStart = floorHour(now.getTime()) - (HOURS - 1) * HOUR_MS;
  const dayStart = floorDay(now.getTime()) - (DAYS - 1) * DAY_MS;
  const where = { keyId, key: { userId }, hour: { gte: new Date(dayStart) } };
  const [byHour, byEndpoint] = await Promise.all([
    prisma.usageCounter.groupBy({ by: ["hour", "statusClass"], where, _sum: { count: true } }),
    prisma.usageCounter.groupBy({ by: ["endpoint", "statusClass"], where, _sum: { count: true } }),
  ]);

  const hourly = Array.from({ length: HOURS }, (_, i) => ({
    start: new Date(hourStart + i * HOUR_MS).toISOString(),
    ...empty(),
  }));
  const daily = Array.from({ length: DAYS }, (_, i) => ({
    start: new Date(dayStart + i * DAY_MS).toISOString(),
    ...empty(),
  }));
  const last24h = empty();
  const last30d = empty();
  for (const row of byHour) {
    const count = row._sum.count ?? 0;
    const t = row.hour.getTime();
    const day = daily[Math.floor((floorDay(t) - dayStart) / DAY_MS)];
    if (day) add(day, row.statusClass, count);
    add(last30d, row.statusClass, count);
    const hour = t >= hourStart ? hourly[Math.floor((t - hourStart) / HOUR_MS)] : undefined;
    if (hour) {
      add(hour, row.statusClass, count);
      add(last24h, row.statusClass, count);
    }
  }

  const endpoints = new Map<string, EndpointUsage>();
  for (const row of byEndpoint) {
    const entry = endpoints.get(row.endpoint) ?? { endpoint: row.endpoint, ...empty() };
    add(entry, row.statusClass, row._sum.count ?? 0);
    endpoints.set(row.endpoint, entry);
  }
  const top = [...endpoints.values()]
    .sort((a, b) => b.total - a.total || a.endpoint.localeCompare(b.endpoint))
    .slice(0, TOP_ENDPOINTS);

  return { hourly, daily, endpoints: top, totals: { last24h, last30d }, generatedAt: now.toISOString() };
}
