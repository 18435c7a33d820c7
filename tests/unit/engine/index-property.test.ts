import { describe, expect, test } from "vitest";
import { recomputeLevel } from "@/lib/engine/chain-link";
import { publishLevel } from "@/lib/engine/decimal";
import { stepIndex } from "@/lib/engine/index-level";
import type { CompositionRecord, IndexState, MarketInfo, Snapshot } from "@/lib/engine/types";
import { Rng } from "@/lib/ingest/demo-prng";
import { hours, indexDef, market, resolvedSnap, snap } from "./index-fixtures";

interface SimMarket {
  info: MarketInfo;
  price: number;
  settleHour: number;
}

/** A random universe: markets list and resolve at random hours, prices walk with up to 8 decimals, quotes go missing. */
function simulate(seed: number, hoursTotal: number) {
  const rng = new Rng(seed);
  const sims: SimMarket[] = [];
  const newMarket = (h: number) => {
    const id = `m${sims.length}`;
    sims.push({
      info: market(id, { listedAt: hours(h) }),
      price: rng.between(0.05, 0.95),
      settleHour: h + rng.int(10, 200),
    });
  };
  for (let i = 0; i < rng.int(2, 6); i++) newMarket(0);
  const latest = new Map<string, Snapshot>();
  const history: { t: Date; snapshots: Snapshot[]; universe: MarketInfo[] }[] = [];
  for (let h = 0; h < hoursTotal; h++) {
    if (h > 0 && rng.chance(0.04)) newMarket(h);
    for (const m of sims) {
      if (m.info.listedAt.getTime() > hours(h).getTime()) continue;
      const prev = latest.get(m.info.conditionId);
      if (prev?.resolved) continue;
      if (h >= m.settleHour) {
        latest.set(m.info.conditionId, resolvedSnap(m.info.conditionId, rng.chance(m.price) ? 1 : 0, hours(h)));
        continue;
      }
      if (prev !== undefined && rng.chance(0.05)) continue; // missing hour: the last snapshot ages
      m.price = Math.min(0.99, Math.max(0.01, m.price + 0.03 * rng.normal()));
      const digits = rng.int(2, 8);
      latest.set(m.info.conditionId, snap(m.info.conditionId, m.price.toFixed(digits), hours(h)));
    }
    history.push({
      t: hours(h),
      snapshots: [...latest.values()],
      universe: sims.map((m) => m.info).filter((i) => i.listedAt.getTime() <= hours(h).getTime()),
    });
  }
  return history;
}

describe("chain-linking property", () => {
  test.each(Array.from({ length: 16 }, (_, i) => 1000 + i))(
    "seed %d: every level equals a from-scratch recomputation, and is continuous to 8 decimals at every reconstitution",
    (seed) => {
      const def = indexDef();
      const history = simulate(seed, 320);
      const priceLog = new Map<string, { t: number; price: string }[]>();
      const compositions: CompositionRecord[] = [];
      let state: IndexState | null = null;
      let links = 0;
      const priceAt = (id: string, t: Date) => {
        const rows = priceLog.get(id) ?? [];
        let lo = 0;
        let hi = rows.length - 1;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if ((rows[mid] as { t: number }).t <= t.getTime()) lo = mid;
          else hi = mid - 1;
        }
        const row = rows[lo];
        if (row === undefined || row.t > t.getTime()) throw new Error(`no price for ${id} at ${t.toISOString()}`);
        return row.price;
      };
      for (const hour of history) {
        for (const s of hour.snapshots) {
          const rows = priceLog.get(s.conditionId) ?? [];
          const price = s.resolved ? String(s.outcome) : s.mid.toString();
          if (rows[rows.length - 1]?.t !== s.observedAt.getTime()) rows.push({ t: s.observedAt.getTime(), price });
          priceLog.set(s.conditionId, rows);
        }
        const before = compositions.slice();
        const r = stepIndex(def, state, hour.t, hour.snapshots, hour.universe);
        state = r.state;
        if (r.composition !== null) compositions.push(r.composition);
        if (r.level === null) break;
        if (hour.t.getTime() % (5 * 3_600_000) === 0 || r.reconstitution !== null) {
          expect(publishLevel(recomputeLevel(compositions, priceAt, hour.t))).toBe(r.level.indexLevel);
        }
        if (r.reconstitution !== null) {
          links++;
          // the same level under the outgoing composition (chain up to k) and the incoming one (basket ratio 1 at k)
          expect(publishLevel(recomputeLevel(before, priceAt, hour.t))).toBe(r.level.indexLevel);
          expect(r.reconstitution.levelAtLink).toBe(r.level.indexLevel);
          expect(publishLevel(recomputeLevel(compositions, priceAt, hour.t))).toBe(r.reconstitution.levelAtLink);
        }
      }
      expect(links).toBeGreaterThan(0);
    },
  );
});
