import fs from "node:fs";
import path from "node:path";
import { catalogSchema } from "@/lib/catalog/schema";
import { compileSeries } from "@/lib/catalog/compile";
import { createDemoMarket } from "@/lib/ingest/demo-market";
import { demoVenueEvents } from "@/lib/ingest/demo-world";
import { everyLeg, legsInForce } from "@/lib/engine/volatility/legs";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolSeriesDefinition, VolState } from "@/lib/engine/volatility/types";
import { cumulative, intervalVariances } from "./independent-normal";

// The demo's simulator is a known truth: its ordered partitions (threshold events) are intervals of
// one Brownian factor, so the expected sum over legs of squared probability changes over a tenor is
// computable from the simulator's own state (factor, its daily sigma, the edges, the settlement),
// here by the independent numerics of ./independent-normal.ts, never the engine's. `calibrate` runs
// the demo and the engine hour by hour as a fresh start does (no database) and returns, per
// published hour, ordered series and tenor, truth / published expected variance (the tenor's pts^2)
// with the tenor's clock tier, and the pooled clock speed (realized / predicted over every hourly
// increment) per partition kind, the figure the calendar clock's prior is set from.

const MS_DAY = 86_400_000;

export interface CalibrationOptions {
  days: number;
  seed: number;
  start: Date;
  /** truth every this many hours */
  every: number;
  /** price every partition as unordered (the methodology before vol-2.0) */
  binary?: boolean;
}

export interface Sample {
  ticker: string;
  tenor: number;
  tier: string;
  ratio: number;
  /** days to settlement at the hour */
  daysLeft: number;
  /** truth over the remaining uncertainty the de-vigged probabilities give without the one-tick floor */
  ratioUnfloored: number;
}

export interface PooledSpeed {
  kind: string;
  speed: number;
  lo: number;
  hi: number;
  days: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

export function calibrate(o: CalibrationOptions): { samples: Sample[]; pooled: PooledSpeed[] } {
  const { days, seed, start, every, binary = false } = o;
  const catalog = catalogSchema.parse(
    JSON.parse(fs.readFileSync(path.join(process.cwd(), "catalog/demo.json"), "utf8")),
  );
  const events = demoVenueEvents(seed, start);
  const defs = catalog.volatility.map((s) => {
    const def = compileSeries(s, { start, events });
    return { def: (binary ? { ...def, partitionOrder: "unordered" } : def) as VolSeriesDefinition, event: s.event };
  });
  const market = createDemoMarket({ seed, start });
  const states = new Map<string, VolState | null>();
  const samples: Sample[] = [];
  const pooled = new Map<string, { R: number; P: number; days: Map<string, { r: number; p: number }> }>();
  const hours = days * 24;
  for (let h = 0; h < hours; h++) {
    const hour = market.advance();
    const t = hour.t;
    const latest = new Map(hour.latest.map((s) => [s.conditionId, s]));
    const sim = h % every === 0 ? market.state() : null;
    for (const { def, event } of defs) {
      if (t < def.inceptionAt) continue;
      const legs = everyLeg(def)
        .map((id) => latest.get(id))
        .filter((s) => s !== undefined);
      const inForce = legsInForce(def, t);
      const step = stepVolatility(
        inForce === def.legs ? def : { ...def, legs: inForce },
        states.get(def.ticker) ?? null,
        t,
        legs,
      );
      states.set(def.ticker, step.state);
      const tick = step.tick;
      if (tick === null) continue;
      const kind = def.partitionOrder ?? "unordered";
      const inc = tick.inputs.clockIncrement;
      if (inc !== null && inc !== undefined) {
        const pool = pooled.get(kind) ?? { R: 0, P: 0, days: new Map() };
        pool.R += inc.realized;
        pool.P += inc.predicted;
        const day = t.toISOString().slice(0, 10);
        const d = pool.days.get(day) ?? { r: 0, p: 0 };
        d.r += inc.realized;
        d.p += inc.predicted;
        pool.days.set(day, d);
        pooled.set(kind, pool);
      }
      if (sim === null || tick.publicationState !== "published") continue;
      const ev = sim.events.find((e) => e.eventKey === event);
      if (ev === undefined || ev.model.kind !== "threshold" || ev.resolved) continue;
      const f = sim.factors[ev.model.factor];
      if (f === undefined) continue;
      const T = Math.max(1 / 24, (Date.parse(ev.settlementAt) - t.getTime()) / MS_DAY);
      const unfloored = tick.components.reduce((acc, c) => acc + c.p * (1 - c.p), 0);
      for (const tenor of def.tenorsDays) {
        const published = tick.tenors[String(tenor)];
        if (published === undefined) continue;
        const expected = (published.pts / 100) ** 2;
        const truth =
          tenor >= T
            ? cumulative(ev.model.edges, f.x, f.sigmaPerDay * Math.sqrt(T)).reduce((s, p) => s + p * (1 - p), 0)
            : intervalVariances(
                ev.model.edges,
                f.x,
                f.sigmaPerDay * Math.sqrt(tenor),
                f.sigmaPerDay * Math.sqrt(T - tenor),
              ).reduce((s, v) => s + v, 0);
        if (expected > 0)
          samples.push({
            ticker: def.ticker,
            tenor,
            tier: tick.labels.tier[String(tenor)] ?? "?",
            ratio: truth / expected,
            daysLeft: T,
            ratioUnfloored: truth / unfloored,
          });
      }
    }
  }
  const speeds: PooledSpeed[] = [...pooled.entries()].map(([kind, pool]) => {
    const s = pool.R / pool.P;
    const list = [...pool.days.values()];
    const n = list.length;
    const sse = list.reduce((acc, d) => acc + (d.r - s * d.p) ** 2, 0);
    const se = Math.sqrt((n / (n - 1)) * sse) / pool.P;
    return { kind, speed: s, lo: s - 1.959963984540054 * se, hi: s + 1.959963984540054 * se, days: n };
  });
  return { samples, pooled: speeds };
}
