import type { Tick, VolatilityLatest } from "@/lib/data/volatility";

/**
 * The value the public surface shows: the newest tick when it is published, otherwise the most
 * recent published one (`published` in the same envelope), so the page and the catalog agree.
 */
export function shownTick(latest: Pick<VolatilityLatest, "tick" | "published" | "publicationState">): {
  tick: Tick;
  source: "tick" | "published";
} {
  if (latest.publicationState === "published" || latest.published === null)
    return { tick: latest.tick, source: "tick" };
  return { tick: latest.published, source: "published" };
}

/**
 * Tenor of the frozen-inception analytic's headline: the tenor whose value it is (the frozen
 * configuration keeps its own headline tenor), else the live headline tenor.
 */
export function counterfactualTenor(cf: { headlinePts: number; tenors?: unknown }, fallback: number): number {
  const tenors = (cf.tenors ?? {}) as Record<string, { pts?: number } | undefined>;
  const fallbackEntry = tenors[String(fallback)];
  if (fallbackEntry?.pts === cf.headlinePts) return fallback;
  const match = Object.entries(tenors).find(([, v]) => v?.pts === cf.headlinePts);
  return match && /^\d+$/.test(match[0]) ? Number(match[0]) : fallback;
}

export interface TenorRow {
  tenorDays: number;
  pts: number;
  share: number;
  shareCi: [number, number] | null;
  tier: string | null;
  headline: boolean;
}

/** The term structure of a tick, shortest tenor first. */
export function termStructure(tick: Pick<Tick, "tenors" | "headlineTenorDays" | "labels">): TenorRow[] {
  return Object.entries(tick.tenors)
    .filter(([k]) => /^\d+$/.test(k))
    .map(([k, v]) => ({
      tenorDays: Number(k),
      pts: v.pts,
      share: v.share,
      shareCi: Array.isArray(v.share_ci) && v.share_ci.length === 2 ? (v.share_ci as [number, number]) : null,
      tier: tick.labels.tier?.[k] ?? null,
      headline: Number(k) === tick.headlineTenorDays,
    }))
    .sort((a, b) => a.tenorDays - b.tenorDays);
}
