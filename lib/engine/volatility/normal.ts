// Standard normal and bivariate normal functions in double precision (absolute error ~1e-15).

const SQRT2 = Math.SQRT2;
const TWO_PI = 2 * Math.PI;
const SQRT_TWO_PI = Math.sqrt(TWO_PI);

// W. J. Cody's rational Chebyshev coefficients for erf / erfc (Math. Comp. 23, 1969).
const ERF_A = [
  3.1611237438705656, 1.13864154151050156e2, 3.77485237685302021e2, 3.20937758913846947e3, 1.85777706184603153e-1,
];
const ERF_B = [2.36012909523441209e1, 2.44024637934444173e2, 1.28261652607737228e3, 2.84423683343917062e3];
const ERFC_P = [
  5.64188496988670089e-1, 8.88314979438837594, 6.61191906371416295e1, 2.98635138197400131e2, 8.8195222124176909e2,
  1.71204761263407058e3, 2.05107837782607147e3, 1.23033935479799725e3, 2.15311535474403846e-8,
];
const ERFC_Q = [
  1.57449261107098347e1, 1.17693950891312499e2, 5.37181101862009858e2, 1.62138957456669019e3, 3.29079923573345963e3,
  4.36261909014324716e3, 3.43936767414372164e3, 1.23033935480374942e3,
];
const ERFC_TAIL_P = [
  3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
  6.58749161529837803e-4, 1.63153871373020978e-2,
];
const ERFC_TAIL_Q = [
  2.56852019228982242, 1.87295284992346725, 5.27905102951428412e-1, 6.05183413124413191e-2, 2.33520497626869185e-3,
];
const INV_SQRT_PI = 1 / Math.sqrt(Math.PI);

/** erfc(x) for x >= 0. */
function erfcNonNegative(x: number): number {
  if (x < 0.5) return 1 - erfSmall(x);
  if (x < 4) {
    const p = ERFC_P;
    const q = ERFC_Q;
    let num = (p[8] as number) * x;
    let den = x;
    for (let i = 0; i < 7; i++) {
      num = (num + (p[i] as number)) * x;
      den = (den + (q[i] as number)) * x;
    }
    return scaledExp(x) * ((num + (p[7] as number)) / (den + (q[7] as number)));
  }
  if (x > 26.55) return 0;
  const p = ERFC_TAIL_P;
  const q = ERFC_TAIL_Q;
  const z = 1 / (x * x);
  let num = (p[5] as number) * z;
  let den = z;
  for (let i = 0; i < 4; i++) {
    num = (num + (p[i] as number)) * z;
    den = (den + (q[i] as number)) * z;
  }
  let r = (z * (num + (p[4] as number))) / (den + (q[4] as number));
  r = (INV_SQRT_PI - r) / x;
  return scaledExp(x) * r;
}

/** exp(-x^2) computed in two pieces to keep the last digits (Cody's trick). */
function scaledExp(x: number): number {
  const xs = Math.trunc(x * 16) / 16;
  const del = (x - xs) * (x + xs);
  return Math.exp(-xs * xs) * Math.exp(-del);
}

function erfSmall(x: number): number {
  const a = ERF_A;
  const b = ERF_B;
  const z = x * x;
  let num = (a[4] as number) * z;
  let den = z;
  for (let i = 0; i < 3; i++) {
    num = (num + (a[i] as number)) * z;
    den = (den + (b[i] as number)) * z;
  }
  return (x * (num + (a[3] as number))) / (den + (b[3] as number));
}

/** Complementary error function. */
export function erfc(x: number): number {
  return x >= 0 ? erfcNonNegative(x) : 2 - erfcNonNegative(-x);
}

/** Standard normal CDF Phi(z). */
export function normCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  if (z === Number.POSITIVE_INFINITY) return 1;
  if (z === Number.NEGATIVE_INFINITY) return 0;
  return 0.5 * erfc(-z / SQRT2);
}

/** Standard normal density. */
export function normPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / SQRT_TWO_PI;
}

// Acklam's rational approximation to the inverse normal CDF (relative error 1.15e-9 before refinement).
const INV_A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
  2.506628277459239,
];
const INV_B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
];
const INV_C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const INV_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const INV_P_LOW = 0.02425;

function polyval(coefficients: readonly number[], x: number): number {
  let acc = 0;
  for (const c of coefficients) acc = acc * x + c;
  return acc;
}

function inverseTail(q: number): number {
  return polyval(INV_C, q) / (polyval(INV_D, q) * q + 1);
}

/** Inverse standard normal CDF: Acklam's rational start, then two Halley steps on normCdf. */
export function normInv(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  let x: number;
  if (p < INV_P_LOW) x = inverseTail(Math.sqrt(-2 * Math.log(p)));
  else if (p > 1 - INV_P_LOW) x = -inverseTail(Math.sqrt(-2 * Math.log(1 - p)));
  else {
    const q = p - 0.5;
    const r = q * q;
    x = (polyval(INV_A, r) * q) / (polyval(INV_B, r) * r + 1);
  }
  for (let i = 0; i < 2; i++) {
    // refine in the tail that keeps relative precision
    const e = x < 0 ? 0.5 * erfc(-x / SQRT2) - p : -(0.5 * erfc(x / SQRT2) - (1 - p));
    const u = e * SQRT_TWO_PI * Math.exp((x * x) / 2);
    x = x - u / (1 + (x * u) / 2);
  }
  return x;
}

// Gauss-Legendre half-rules (abscissae in (0, 1), weights) with 6, 12 and 20 points.
const GL: readonly { x: readonly number[]; w: readonly number[] }[] = [
  {
    w: [0.1713244923791705, 0.3607615730481384, 0.4679139345726904],
    x: [0.9324695142031522, 0.6612093864662647, 0.238619186083197],
  },
  {
    w: [
      0.04717533638651177, 0.1069393259953183, 0.1600783285433464, 0.2031674267230659, 0.2334925365383547,
      0.2491470458134029,
    ],
    x: [
      0.9815606342467191, 0.904117256370475, 0.769902674194305, 0.5873179542866171, 0.3678314989981802,
      0.1252334085114692,
    ],
  },
  {
    w: [
      0.01761400713915212, 0.04060142980038694, 0.06267204833410906, 0.08327674157670475, 0.1019301198172404,
      0.1181945319615184, 0.1316886384491766, 0.1420961093183821, 0.1491729864726037, 0.1527533871307259,
    ],
    x: [
      0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188, 0.7463319064601508,
      0.636053680726515, 0.5108670019508271, 0.3737060887154196, 0.2277858511416451, 0.07652652113349733,
    ],
  },
];

/** The 12-point Gauss-Legendre half-rule, shared with other quadratures. */
export const GAUSS_LEGENDRE_12 = GL[1] as { x: readonly number[]; w: readonly number[] };

/**
 * P(X > h, Y > k) for a standard bivariate normal with correlation r: the Drezner-Wesolowsky
 * method with Genz's double-precision modifications (Statistics and Computing 14, 2004).
 */
export function bivariateNormalUpper(h: number, k: number, r: number): number {
  if (h === Number.POSITIVE_INFINITY || k === Number.POSITIVE_INFINITY) return 0;
  if (h === Number.NEGATIVE_INFINITY) return k === Number.NEGATIVE_INFINITY ? 1 : normCdf(-k);
  if (k === Number.NEGATIVE_INFINITY) return normCdf(-h);
  const rule = Math.abs(r) < 0.3 ? GL[0] : Math.abs(r) < 0.75 ? GL[1] : GL[2];
  const { x, w } = rule as { x: readonly number[]; w: readonly number[] };
  let hk = h * k;
  let bvn = 0;
  if (Math.abs(r) < 0.925) {
    const hs = (h * h + k * k) / 2;
    const asr = Math.asin(r);
    for (let i = 0; i < x.length; i++) {
      const xi = x[i] as number;
      const wi = w[i] as number;
      const s1 = Math.sin((asr * (1 - xi)) / 2);
      const s2 = Math.sin((asr * (1 + xi)) / 2);
      bvn += wi * (Math.exp((s1 * hk - hs) / (1 - s1 * s1)) + Math.exp((s2 * hk - hs) / (1 - s2 * s2)));
    }
    bvn = (bvn * asr) / (4 * Math.PI);
    return clamp01(bvn + normCdf(-h) * normCdf(-k));
  }
  let kk = k;
  if (r < 0) {
    kk = -kk;
    hk = -hk;
  }
  if (Math.abs(r) < 1) {
    const as = (1 - r) * (1 + r);
    let a = Math.sqrt(as);
    const bs = (h - kk) * (h - kk);
    const c = (4 - hk) / 8;
    const d = (12 - hk) / 16;
    let asr = -(bs / as + hk) / 2;
    if (asr > -100) bvn = a * Math.exp(asr) * (1 - (c * (bs - as) * (1 - (d * bs) / 5)) / 3 + (c * d * as * as) / 5);
    if (hk > -100) {
      const b = Math.sqrt(bs);
      const sp = SQRT_TWO_PI * normCdf(-b / a);
      bvn -= Math.exp(-hk / 2) * sp * b * (1 - (c * bs * (1 - (d * bs) / 5)) / 3);
    }
    a /= 2;
    for (let i = 0; i < x.length; i++) {
      const xi = x[i] as number;
      const wi = w[i] as number;
      for (let sign = -1; sign <= 1; sign += 2) {
        const xs = (a + a * sign * xi) ** 2;
        const rs = Math.sqrt(1 - xs);
        asr = -(bs / xs + hk) / 2;
        if (asr > -100) {
          const sp = 1 + c * xs * (1 + d * xs);
          const ep = Math.exp((-hk * (1 - rs)) / (2 * (1 + rs))) / rs;
          bvn += a * wi * Math.exp(asr) * (ep - sp);
        }
      }
    }
    bvn = -bvn / TWO_PI;
  }
  if (r > 0) bvn += normCdf(-Math.max(h, kk));
  else bvn = -bvn + Math.max(0, normCdf(-h) - normCdf(-kk));
  return clamp01(bvn);
}

/** Phi2(h, k; r) = P(X <= h, Y <= k). */
export function bivariateNormalCdf(h: number, k: number, r: number): number {
  return bivariateNormalUpper(-h, -k, r);
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
