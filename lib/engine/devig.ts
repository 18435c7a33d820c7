// De-vigging a partition: turn quoted leg prices that sum to S != 1 into probabilities summing to 1.
// Every method returns its input unchanged when it already sums to 1, and null where it is undefined.

export type DevigMethod = "multiplicative" | "power" | "additive" | "shin";

const EXACT = 1e-12;

function total(m: readonly number[]): number {
  return m.reduce((s, v) => s + v, 0);
}

function valid(m: readonly number[]): boolean {
  return m.length > 0 && m.every((v) => Number.isFinite(v) && v >= 0 && v <= 1);
}

/** Divide each leg by the sum (the default; handles overround and underround alike). */
export function devigMultiplicative(m: readonly number[]): number[] | null {
  if (!valid(m)) return null;
  const s = total(m);
  if (s <= 0) return null;
  if (Math.abs(s - 1) < EXACT) return [...m];
  return m.map((v) => v / s);
}

/** Subtract an equal share of the overround from every leg; undefined when a leg would go negative. */
export function devigAdditive(m: readonly number[]): number[] | null {
  if (!valid(m)) return null;
  const s = total(m);
  if (Math.abs(s - 1) < EXACT) return [...m];
  const shift = (s - 1) / m.length;
  const p = m.map((v) => v - shift);
  return p.every((v) => v >= 0 && v <= 1) ? p : null;
}

/** Raise every leg to the power k with sum m_j^k = 1 (the band's sensitivity input). */
export function devigPower(m: readonly number[]): number[] | null {
  if (!valid(m)) return null;
  const s = total(m);
  if (Math.abs(s - 1) < EXACT) return [...m];
  const positive = m.filter((v) => v > 0);
  if (positive.length < 2 || positive.some((v) => v >= 1)) return null;
  const logs = positive.map((v) => Math.log(v));
  const f = (k: number) => {
    let acc = -1;
    for (const l of logs) acc += Math.exp(k * l);
    return acc;
  };
  const df = (k: number) => {
    let acc = 0;
    for (const l of logs) acc += Math.exp(k * l) * l;
    return acc;
  };
  // f is decreasing and convex in k: safeguarded Newton inside a bracket
  let lo = s > 1 ? 1 : 1e-6;
  let hi = s > 1 ? 2 : 1;
  while (s > 1 && f(hi) > 0) hi *= 2;
  if (f(lo) < 0 || f(hi) > 0) return null;
  let k = s > 1 ? lo : hi;
  for (let i = 0; i < 100; i++) {
    const fk = f(k);
    if (fk > 0) lo = k;
    else hi = k;
    const slope = df(k);
    let next = slope < 0 ? k - fk / slope : (lo + hi) / 2;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - k) <= 1e-15 * k) {
      k = next;
      break;
    }
    k = next;
  }
  return m.map((v) => (v > 0 ? v ** k : 0));
}

/** Shin's insider-trading model; undefined when the legs sum to less than 1. */
export function devigShin(m: readonly number[]): number[] | null {
  if (!valid(m)) return null;
  const s = total(m);
  if (Math.abs(s - 1) < EXACT) return [...m];
  if (s < 1) return null;
  const leg = (z: number, v: number) => (Math.sqrt(z * z + (4 * (1 - z) * v * v) / s) - z) / (2 * (1 - z));
  const f = (z: number) => {
    let acc = -1;
    for (const v of m) acc += leg(z, v);
    return acc;
  };
  let lo = 0;
  let hi = 0.999999;
  if (f(lo) < 0 || f(hi) > 0) return null;
  for (let i = 0; i < 200 && hi - lo > 1e-16; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  const z = (lo + hi) / 2;
  return m.map((v) => leg(z, v));
}

export function devig(method: DevigMethod, m: readonly number[]): number[] | null {
  switch (method) {
    case "multiplicative":
      return devigMultiplicative(m);
    case "power":
      return devigPower(m);
    case "additive":
      return devigAdditive(m);
    case "shin":
      return devigShin(m);
  }
}
