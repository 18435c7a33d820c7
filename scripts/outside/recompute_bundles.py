#!/usr/bin/env python3
"""Recomputes a month bundle's published numbers from its files, as an outside user would.

Written from the methodology page (/docs/methodology) and the bundle file reference
(/docs/downloads) only: Python 3 standard library, no code of the service. It reads one month
folder, or every YYYY-MM folder under a directory (oldest first; earlier months feed the clock
windows and the attribution of a month's first hours), and checks:

  - every file against manifest.json (sha256, bytes, rows);
  - every hourly index level (exact decimal, 8 decimals, ROUND_HALF_EVEN) and composition base;
  - per volatility computation: the de-vigged p, each tenor's pts, share and share interval,
    each leg's tenor points, the headline, the band, fbv_r_pts, the clock increment the hour
    added, the clock per tenor (tier, speed, speedLo, speedHi, windowDays, coverage) from the
    published increments, the clock version label, the attribution (move, deltaPts2, per-leg
    price and clock parts), the counterfactual over the inception legs, those no longer in force
    included (and its fingerprint),
    and the gate decision (status and failing gates) by the documented rules in exact decimal;
  - history_fidelity_minutes: never on a live value; a volatility computation's is the coarsest of
    its legs' (legs quoted from the venue's history only);
  - the forecast record (schemaVersion 7): each closed window's expected move (the tenor's points
    published at its start) and realized move (from the leg panel's p at both ends).

Every difference is printed as one line naming month, file, ticker, hour and what differs,
with the published and the recomputed value; the exit status is 1 when there is any, 0 when
everything agrees (2 on a usage error).

usage: python3 recompute_bundles.py DIR
"""

import bisect
import csv
import datetime as dt
import decimal
import functools
import hashlib
import json
import math
import os
import re
import statistics
import sys
from decimal import Decimal as D

decimal.getcontext().prec = 50
decimal.getcontext().rounding = decimal.ROUND_HALF_EVEN

MS_DAY = 86_400_000
PTS2 = 10_000.0
# six published decimals: a recomputation agrees within half a unit of the sixth (plus float slack)
TOL6 = 5e-7 + 1e-9
NORMAL = statistics.NormalDist()


class Report:
    def __init__(self):
        self.failures = []
        self.counts = {}
        self.max_diff = 0.0
        self.max_level_diff = D(0)

    def count(self, what, n=1):
        self.counts[what] = self.counts.get(what, 0) + n

    def fail(self, month, file, ticker, t, what, published, recomputed):
        self.failures.append((month, file, ticker, t, what, str(published), str(recomputed)))

    def close(self, month, file, ticker, t, what, published, recomputed, tol=TOL6):
        """Compares a published six-decimal number with an unrounded recomputation."""
        self.count("values")
        diff = abs(float(published) - recomputed)
        self.max_diff = max(self.max_diff, diff)
        if not diff <= tol:
            self.fail(month, file, ticker, t, what, published, f"{recomputed:.9f}")


def rows(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@functools.lru_cache(maxsize=None)
def ms(stamp):
    """Milliseconds since the epoch of a bundle timestamp (microseconds, Z); each distinct stamp is parsed once."""
    d = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.timezone.utc)
    return (d - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(milliseconds=1)


def day_of(t_ms):
    return dt.date(1970, 1, 1) + dt.timedelta(days=t_ms // MS_DAY)


def fsum_ordered(xs):
    """Left-to-right double sum (the order the methodology states; not Python's compensated sum)."""
    s = 0.0
    for x in xs:
        s += x
    return s


# ---------------------------------------------------------------- manifest


def check_manifest(folder, month, rep):
    path = os.path.join(folder, "manifest.json")
    if not os.path.exists(path):
        rep.fail(month, "manifest.json", None, None, "manifest", "manifest.json beside the files", "missing")
        return {}
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    for entry in manifest.get("files", []):
        rep.count("files")
        p = os.path.join(folder, entry["name"])
        if not os.path.exists(p):
            rep.fail(month, entry["name"], None, None, "file", "listed in manifest.json", "missing")
            continue
        content = open(p, "rb").read()
        sha = hashlib.sha256(content).hexdigest()
        if sha != entry["sha256"]:
            rep.fail(month, entry["name"], None, None, "sha256", entry["sha256"], sha)
        if len(content) != entry["bytes"]:
            rep.fail(month, entry["name"], None, None, "bytes", entry["bytes"], len(content))
        with open(p, newline="", encoding="utf-8") as f:
            records = sum(1 for _ in csv.reader(f)) - 1
        if records != entry["rows"]:
            rep.fail(month, entry["name"], None, None, "rows", entry["rows"], records)
    return manifest


# ---------------------------------------------------------------- index levels


def check_fidelity(r, panel, rep, fail):
    """history_fidelity_minutes of a volatility computation and its legs (bundles built before the column
    lack it: hourly history or live). A leg's is its market's history fidelity when its quote is a point
    of that history (not a settlement) and it is coarser than hourly (720: 12-hour points); the computation's is the coarsest of
    its legs'; empty otherwise, and never on a live value."""
    marked = r.get("history_fidelity_minutes")
    if marked is None:
        return
    if marked and int(marked) > 60:
        rep.count("volatility computations from history coarser than hourly")
    if marked and r.get("basis") == "live":
        fail("volatility_history.csv", "history_fidelity_minutes", marked, "empty (a live value)")
    if any("history_fidelity_minutes" not in l for l in panel):
        return
    for l in panel:
        if l["history_fidelity_minutes"] and (l["source"] != "history" or l["resolved"] == "true"):
            fail("volatility_legs.csv", f"leg {l['leg_key']} history_fidelity_minutes", l["history_fidelity_minutes"], "empty (not a point of the history)")
    most = max([int(l["history_fidelity_minutes"] or 0) for l in panel] + [0])
    recomputed = str(most) if most > 0 else ""
    if recomputed != marked:
        fail("volatility_history.csv", "history_fidelity_minutes", marked, recomputed)


def check_index(folder, month, rep):
    comps = {}
    for r in rows(folder, "compositions.csv"):
        comps.setdefault(r["ticker"], []).append(r)
    for lst in comps.values():
        lst.sort(key=lambda c: ms(c["effective_at"]))
    weights = {}
    for r in rows(folder, "target_weights.csv"):
        weights.setdefault((r["ticker"], r["composition_version"]), {})[r["condition_id"]] = D(r["target_weight"])
    prices = {}
    for r in rows(folder, "constituent_prices.csv"):
        prices[(r["ticker"], r["t"], r["condition_id"])] = D(r["price"])

    def basket(ticker, version, t):
        w = weights.get((ticker, version))
        if w is None:
            return None
        s = D(0)
        for cond, wi in w.items():
            p = prices.get((ticker, t, cond))
            if p is None:
                return None
            s += wi * p
        return s

    levels = rows(folder, "index_levels.csv")
    unrounded = {}
    first = {}
    for r in levels:
        first[r["ticker"]] = min(first.get(r["ticker"], ms(r["t"])), ms(r["t"]))
    for r in levels:
        rep.count("index levels")
        t_ms = ms(r["t"])
        lst = comps.get(r["ticker"], [])
        before = [c for c in lst if ms(c["effective_at"]) < t_ms]
        c = before[-1] if before else next((c for c in lst if ms(c["effective_at"]) == t_ms), None)
        if c is None:
            rep.fail(month, "index_levels.csv", r["ticker"], r["t"], "index_level", r["index_level"], "no composition prices this hour")
            continue
        if r.get("pricing_composition_version") and r["pricing_composition_version"] != c["composition_version"]:
            rep.fail(month, "index_levels.csv", r["ticker"], r["t"], "pricing_composition_version", r["pricing_composition_version"], c["composition_version"])
        b = basket(r["ticker"], c["composition_version"], r["t"])
        if b is None:
            rep.fail(month, "index_levels.csv", r["ticker"], r["t"], "index_level", r["index_level"], "a price or weight is missing")
            continue
        level = D(c["base_level"]) * b / D(c["base_basket_value"])
        unrounded[(r["ticker"], r["t"])] = level
        published = level.quantize(D("0.00000001"))
        diff = abs(published - D(r["index_level"]))
        rep.max_level_diff = max(rep.max_level_diff, diff)
        if diff != 0:
            rep.fail(month, "index_levels.csv", r["ticker"], r["t"], "index_level", r["index_level"], published)
        # history_fidelity_minutes (absent in older bundles: hourly history or live): 720 when the basket held a
        # market priced from the venue's 12-hour history; never on a live level
        marked = r.get("history_fidelity_minutes") or ""
        if marked and int(marked) > 60:
            rep.count("index levels from history coarser than hourly")
        if marked and r.get("basis") == "live":
            rep.fail(month, "index_levels.csv", r["ticker"], r["t"], "history_fidelity_minutes", marked, "empty (a live level)")
    # each composition base starting in the month: 100 and its basket at inception, else the chain link
    hours = {(r["ticker"], ms(r["t"])): r["t"] for r in levels}
    for ticker, lst in comps.items():
        for i, c in enumerate(lst):
            at = ms(c["effective_at"])
            t = hours.get((ticker, at))
            if t is None:
                continue
            rep.count("composition bases")
            b = basket(ticker, c["composition_version"], t)
            level = D(100) if (i == 0 and at == first[ticker]) else unrounded.get((ticker, t))
            if b is None or level is None or b != D(c["base_basket_value"]) or level != D(c["base_level"]):
                rep.fail(month, "compositions.csv", ticker, t, f"{c['composition_version']} base_level / base_basket_value", f"{c['base_level']} / {c['base_basket_value']}", f"{level} / {b}")
            lf = D(c["base_level"]) / D(c["base_basket_value"])
            if c.get("link_factor") and D(c["link_factor"]) != lf:
                rep.fail(month, "compositions.csv", ticker, t, f"{c['composition_version']} link_factor", c["link_factor"], lf)


# ---------------------------------------------------------------- volatility formulas


def devig_multiplicative(m):
    s = fsum_ordered(m)
    if abs(s - 1) < 1e-12:
        return list(m)
    if s <= 0:
        return None
    return [x / s for x in m]


def devig_power(m):
    s = fsum_ordered(m)
    if abs(s - 1) < 1e-12:
        return list(m)
    pos = [x for x in m if x > 0]
    if len(pos) < 2 or any(x >= 1 for x in pos):
        return None
    f = lambda k: fsum_ordered(x ** k for x in pos) - 1
    # sum m^k decreases in k: bracket k in (0, 1] below 1, [1, inf) above, then bisect to the last bit
    lo, hi = (1.0, 2.0) if s > 1 else (1e-9, 1.0)
    while f(hi) > 0:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    k = (lo + hi) / 2
    return [x ** k if x > 0 else 0.0 for x in m]


def devig_shin(m):
    s = fsum_ordered(m)
    if abs(s - 1) < 1e-12:
        return list(m)
    if s < 1:
        return None
    leg = lambda z, x: (math.sqrt(z * z + 4 * (1 - z) * x * x / s) - z) / (2 * (1 - z))
    f = lambda z: fsum_ordered(leg(z, x) for x in m) - 1
    lo, hi = 0.0, 0.999999
    if f(lo) < 0 or f(hi) > 0:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi) or hi - lo <= 1e-16:
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    z = (lo + hi) / 2
    return [leg(z, x) for x in m]


def _gauss_legendre(n):
    """Nodes and weights on [-1, 1], by Newton's method on the Legendre polynomial."""
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            dx = p1 / dp
            x -= dx
            if abs(dx) < 1e-16:
                break
        nodes.append(x)
        weights.append(2 / ((1 - x * x) * dp * dp))
    return nodes, weights


GL_X, GL_W = _gauss_legendre(24)
# The leg-variance integrals below are pure functions of their arguments, met again and again for the
# same legs: each is kept in a bounded cache (the same numbers, computed once).
CACHED = functools.lru_cache(maxsize=200_000)


def var_h(p, rho):
    """Variance realized within the fraction rho of the time to settlement:
    Phi2(a, a; rho) - p^2 with a = Phi^-1(p), as (1/2pi) * integral_0^asin(rho) exp(-a^2/(1+sin u)) du."""
    if p <= 0 or p >= 1 or rho <= 0:
        return 0.0
    if rho >= 1:
        return p * (1 - p)
    return _var_h(p, rho)


@CACHED
def _var_h(p, rho):
    a = NORMAL.inv_cdf(p)
    a2 = a * a
    half = math.asin(rho) / 2
    s = 0.0
    for x, w in zip(GL_X, GL_W):
        s += w * math.exp(-a2 / (1 + math.sin(half * (1 + x))))
    return min(p * (1 - p), s * half / (2 * math.pi))


def var_linear(p, rho):
    return 0.0 if p <= 0 or p >= 1 else p * (1 - p) * min(1.0, max(0.0, rho))


def rho_of(tenor, days, speed):
    """The tenor's fraction of the (clock) time to settlement; unknown settlement counts as inside the tenor."""
    if days is None or days <= 0:
        return 1.0
    x = tenor / days
    if x >= 1:
        return 1.0
    if x <= 0:
        return 0.0
    if speed == 1:
        return x
    return min(1.0, speed * x / (1 + (speed - 1) * x))


def budget_of(p):
    return fsum_ordered(0.0 if x <= 0 or x >= 1 else x * (1 - x) for x in p)


def tenor_variance(p, days, tenor, speed, kind="diffusion"):
    f = var_h if kind == "diffusion" else var_linear
    return fsum_ordered(f(pj, rho_of(tenor, dj, speed)) for pj, dj in zip(p, days))


# ---------------------------------------------------------------- vol-2.0: ordered partitions, floor, prior

FLOOR_P = 0.005
# the calendar clock's prior speed and interval per partition kind (vol-2.0)
PRIOR = {"ordered": (1.04, 1.01, 1.08), "unordered": (0.71, 0.67, 0.75)}


def vol_rules(methodology_version, partition_order):
    """(order, v2): from vol-2.0 on the series' partition order, the floor and the prior apply."""
    m = re.match(r"^vol-(\d+)\.", methodology_version or "")
    v2 = m is not None and int(m.group(1)) >= 2
    return ("ordered" if v2 and partition_order == "ordered" else "unordered"), v2


def floor_partition(p):
    """Legs below the one-tick floor count as 0; the others are rescaled to sum 1."""
    if not any(0 < x < FLOOR_P for x in p):
        return list(p)
    kept = [0.0 if x < FLOOR_P else x for x in p]
    total = fsum_ordered(kept)
    return [x / total for x in kept] if total > 0 else list(p)


def _threshold(c):
    if c <= 0:
        return -math.inf
    if c >= 1:
        return math.inf
    return NORMAL.inv_cdf(c)


def prepare(p, order, v2):
    """The vector the variances use, and for an ordered partition each leg's thresholds (lo, hi)."""
    pv = floor_partition(p) if v2 else list(p)
    shapes = [None] * len(pv)
    if order == "ordered":
        below = 0.0
        for j, pj in enumerate(pv):
            up = 1.0 if j == len(pv) - 1 else min(1.0, below + pj)
            shapes[j] = (_threshold(below), _threshold(up))
            below = up
    return pv, shapes


GL20_X, GL20_W = _gauss_legendre(20)
# the rules _bvn_upper uses, by the number of nodes (computed once: the same nodes every call)
GL_RULES = {n: _gauss_legendre(n) for n in (6, 12, 20)}


@CACHED
def _kernel_nodes(rho):
    """The 20-node rule over u in [0, asin(rho)] for the kernel integral: half the range, and per node
    (2 r, 2 (1 - r^2), weight) with r = sin u. Every leg priced at the same rho uses the same nodes."""
    half = math.asin(rho) / 2
    nodes = []
    for x, w in zip(GL20_X, GL20_W):
        sn = math.sin(half * (1 + x))
        nodes.append((2 * sn, 2 * (1 - sn * sn), w))
    return half, nodes


def _bvn_upper(h, k, r):
    """P(X > h, Y > k), standard bivariate normal with correlation r (Drezner-Wesolowsky, Genz's version)."""
    if h == math.inf or k == math.inf:
        return 0.0
    if h == -math.inf:
        return 1.0 if k == -math.inf else NORMAL.cdf(-k)
    if k == -math.inf:
        return NORMAL.cdf(-h)
    n = 6 if abs(r) < 0.3 else 12 if abs(r) < 0.75 else 20
    xs, ws = GL_RULES[n]
    hk = h * k
    bvn = 0.0
    if abs(r) < 0.925:
        hs = (h * h + k * k) / 2
        asr = math.asin(r)
        for x, w in zip(xs, ws):
            sn = math.sin(asr * (x + 1) / 2)
            bvn += w * math.exp((sn * hk - hs) / (1 - sn * sn))
        bvn = bvn * asr / (4 * math.pi)
        return min(1.0, max(0.0, bvn + NORMAL.cdf(-h) * NORMAL.cdf(-k)))
    if r < 0:
        k = -k
        hk = -hk
    if abs(r) < 1:
        a_s = (1 - r) * (1 + r)
        a = math.sqrt(a_s)
        bs = (h - k) * (h - k)
        c = (4 - hk) / 8
        d = (12 - hk) / 16
        asr = -(bs / a_s + hk) / 2
        if asr > -100:
            bvn = a * math.exp(asr) * (1 - c * (bs - a_s) * (1 - d * bs / 5) / 3 + c * d * a_s * a_s / 5)
        if hk > -100:
            b = math.sqrt(bs)
            sp = math.sqrt(2 * math.pi) * NORMAL.cdf(-b / a)
            bvn -= math.exp(-hk / 2) * sp * b * (1 - c * bs * (1 - d * bs / 5) / 3)
        a /= 2
        for x, w in zip(xs, ws):
            xs2 = (a * (x + 1)) ** 2
            rs = math.sqrt(1 - xs2)
            asr = -(bs / xs2 + hk) / 2
            if asr > -100:
                sp = 1 + c * xs2 * (1 + d * xs2)
                ep = math.exp(-hk * (1 - rs) / (2 * (1 + rs))) / rs
                bvn += a * w * math.exp(asr) * (ep - sp)
        bvn = -bvn / (2 * math.pi)
    if r > 0:
        bvn += NORMAL.cdf(-max(h, k))
    else:
        bvn = -bvn + max(0.0, NORMAL.cdf(-h) - NORMAL.cdf(-k))
    return min(1.0, max(0.0, bvn))


def _phi2(x, y, r):
    if x == -math.inf or y == -math.inf:
        return 0.0
    return _bvn_upper(-x, -y, r)


def var_ordered(a, b, p, rho):
    """Leg variance of an ordered partition: Phi2(b,b;rho) - 2 Phi2(a,b;rho) + Phi2(a,a;rho) - p^2; for rho <= 0.5
    as (1/2pi) * integral_0^asin(rho) of K(b,b) - 2 K(a,b) + K(a,a) (r = sin u), with no cancellation."""
    if p <= 0 or p >= 1 or rho <= 0:
        return 0.0
    if rho >= 1:
        return p * (1 - p)
    return _var_ordered(a, b, p, rho)


@CACHED
def _var_ordered(a, b, p, rho):
    if rho <= 0.5:
        # K(x, y) = exp(-(x^2 - 2 r x y + y^2) / (2 (1 - r^2))); a K with an infinite threshold is 0, and
        # leaving out a term that is 0 changes no bit of the sum (the first leg has a = -inf, the last b = +inf)
        half, nodes = _kernel_nodes(rho)
        exp = math.exp
        acc = 0.0
        if math.isinf(a) and math.isinf(b):
            pass
        elif math.isinf(a):
            bb = b * b
            for s2, den, w in nodes:
                acc += w * exp(-(bb - s2 * b * b + bb) / den)
        elif math.isinf(b):
            aa = a * a
            for s2, den, w in nodes:
                acc += w * exp(-(aa - s2 * a * a + aa) / den)
        else:
            aa, bb = a * a, b * b
            for s2, den, w in nodes:
                kbb = exp(-(bb - s2 * b * b + bb) / den)
                kab = exp(-(aa - s2 * a * b + bb) / den)
                kaa = exp(-(aa - s2 * a * a + aa) / den)
                acc += w * (kbb - 2 * kab + kaa)
        v = acc * half / (2 * math.pi)
    else:
        v = _phi2(b, b, rho) - 2 * _phi2(a, b, rho) + _phi2(a, a, rho) - p * p
    return min(p * (1 - p), max(0.0, v))


def leg_var(pj, shape, rho):
    return var_h(pj, rho) if shape is None else var_ordered(shape[0], shape[1], pj, rho)


def part_variance(pv, shapes, days, tenor, speed, kind="diffusion"):
    """The partition's variance within a tenor: each leg on its own horizon, as a binary or by the cumulative form."""
    if kind == "linear":
        return fsum_ordered(var_linear(pj, rho_of(tenor, dj, speed)) for pj, dj in zip(pv, days))
    return fsum_ordered(leg_var(pj, sh, rho_of(tenor, dj, speed)) for pj, sh, dj in zip(pv, shapes, days))


# ---------------------------------------------------------------- the clock

Z95 = 1.959963984540054


def clamp_speed(v):
    return min(4.0, max(0.25, v))


CLOCK_DECIMALS = D("0.000001")


def published_clock_value(x):
    """A clock number as published: six decimals, to nearest from the double's exact binary value
    (ties to even; a double is never exactly halfway there)."""
    return float(D(x).quantize(CLOCK_DECIMALS, rounding=decimal.ROUND_HALF_EVEN)) + 0.0


def estimate_clock(days, t_ms, tenor):
    """days: list of [date, realized, predicted, n, ...] in date order (a day's realized and
    predicted: math.fsum of its increments), increments of hours before t only. Every sum is
    math.fsum (correctly rounded, independent of order); every square is x * x."""
    window = max(30, math.ceil(tenor))
    today = day_of(t_ms)
    start = today - dt.timedelta(days=window - 1)
    inwin = [d for d in days if start <= d[0] <= today]
    n_incr = 0
    for d in inwin:
        n_incr += d[3]
    coverage = n_incr / (24 * window)
    R = math.fsum(d[1] for d in inwin)
    P = math.fsum(d[2] for d in inwin)
    if not inwin or inwin[0][0] != start or coverage < 0.6 or not P > 0 or len(inwin) < 2:
        c = {"tier": "budget-implied", "speed": 1, "speedLo": 1, "speedHi": 1, "windowDays": window, "coverage": coverage}
    else:
        s_raw = R / P
        n = len(inwin)
        sse = math.fsum((d[1] - s_raw * d[2]) * (d[1] - s_raw * d[2]) for d in inwin)
        se = math.sqrt(n / (n - 1) * sse) / P
        c = {
            "tier": "historical-clock",
            "speed": clamp_speed(s_raw),
            "speedLo": clamp_speed(s_raw - Z95 * se),
            "speedHi": clamp_speed(s_raw + Z95 * se),
            "windowDays": window,
            "coverage": coverage,
        }
    for field in ("speed", "speedLo", "speedHi", "coverage"):
        c[field] = published_clock_value(c[field])
    return c


def add_clock_increment(days, t_ms, realized, predicted):
    """Adds one published hourly increment to its UTC day: the day's sums are math.fsum of its increments."""
    today = day_of(t_ms)
    if days and days[-1][0] == today:
        last = days[-1]
        last[4].append(realized)
        last[5].append(predicted)
        days[-1] = [today, math.fsum(last[4]), math.fsum(last[5]), last[3] + 1, last[4], last[5]]
        return days
    days.append([today, realized, predicted, 1, [realized], [predicted]])
    return [x for x in days if x[0] >= today - dt.timedelta(days=366)]


class Series:
    """What the next computation of a series needs from the ones before it."""

    def __init__(self):
        self.days = []  # clock: [date, realized, predicted, n, increments realized, increments predicted]
        self.known_from = None  # first date whose increments are all in DIR
        self.prev = None  # previous computation


# ---------------------------------------------------------------- gates (exact decimal)


def dec(x):
    """A number as the decimal it prints as: a cell's text, or a double's shortest round-trip form."""
    return D(x) if isinstance(x, str) else D(repr(float(x)))


def decide_gates(g, t_ms, legs, impact, devig_gap, pythag, identity):
    names = set()
    failing = set()
    for i, l in enumerate(legs):
        def fail_leg(name):
            names.add(name)
            failing.add(i)
        if l["observed_ms"] is None:
            fail_leg("leg_missing")
            continue
        if l["resolved"]:
            continue
        if D(t_ms - l["observed_ms"]) > dec(g["snapshotMaxAgeSeconds"]) * 1000:
            fail_leg("snapshot_age")
        # a quote from the venue's history has no book: the depth floor does not apply to it
        if l.get("source") != "history" and dec(l["depth_usd"]) < dec(g["depthFloorUsd"]):
            fail_leg("depth_floor")
        mid = dec(l["mid"])
        if not mid > 0 or dec(l["ask"]) - dec(l["bid"]) > dec(g["spreadToMidMax"]) * mid:
            fail_leg("spread_to_mid")
        if impact[i] is not None and dec(impact[i]) > dec(g["impactBudgetPts"]):
            fail_leg("impact")
    quoted = [l for l in legs if l["observed_ms"] is not None]
    sum_mid = sum((dec(l["mid"]) for l in quoted), D(0))
    if sum_mid > dec(g["overroundFlagHi"]):
        names.add("overround")
    elif sum_mid < dec(g["overroundFlagLo"]):
        names.add("underround")
    live = [l for l in quoted if not l["resolved"]]
    times = [l["observed_ms"] for l in live]
    if len(times) > 1 and D(max(times) - min(times)) > dec(g["snapshotMaxSkewSeconds"]) * 1000:
        names.add("snapshot_skew")
    tol = max(dec(g["arbToleranceMin"]), dec(g["arbToleranceTicks"]) * D("0.01"))
    unresolved = [l for l in legs if not l["resolved"]]
    if len(live) > 1 and len(live) == len(unresolved) and all(dec(l["depth_usd"]) >= dec(g["arbMinDepthUsd"]) for l in live):
        asks = sum((dec(l["ask"]) for l in live), D(0))
        bids = sum((dec(l["bid"]) for l in live), D(0))
        if asks < 1 - tol or bids > 1 + tol:
            names.add("arbitrage")
    if devig_gap is not None and dec(devig_gap) > dec(g["devigTolerance"]):
        names.add("devig")
    for pts, leg_pts in pythag:
        gap = dec(pts) ** 2 - sum((dec(x) ** 2 for x in leg_pts), D(0))
        if abs(gap) > dec(g["pythagoreanTolerancePts2"]):
            names.add("pythagorean")
    if identity is not None:
        delta, parts = identity
        if abs(dec(delta) - sum((dec(x) for x in parts), D(0))) > dec(g["identityTolerance"]):
            names.add("identity")
    share = sum((dec(legs[i]["w"]) for i in failing if legs[i]["w"] != ""), D(0))
    status = "flagged" if names else "ok"
    if any(l["observed_ms"] is None for l in legs) or share > dec(g["suspendFailingBudgetShare"]):
        status = "suspended"
        names.add("failing_budget_share")
    return status, sorted(names)


# ---------------------------------------------------------------- one month of volatility


def check_volatility(folder, month, rep, state, inception):
    defs = {}
    for r in rows(folder, "volatility_series.csv"):
        defs[r["ticker"]] = {"H": float(r["headline_tenor_days"]), "tenors": json.loads(r["tenors_days_json"]), "gates": json.loads(r["gates_json"]), "order": r.get("partition_order", "")}
    for r in rows(folder, "volatility_inception.csv"):
        rep.count("inception configurations")
        sha = hashlib.sha256(r["config_json"].encode("utf-8")).hexdigest()
        if sha != r["anchor_fingerprint"]:
            rep.fail(month, "volatility_inception.csv", r["ticker"], r["anchor_at"], "anchor_fingerprint", r["anchor_fingerprint"], sha)
        inception[(r["ticker"], r["anchor_fingerprint"])] = r
    legs_of = {}
    for r in rows(folder, "volatility_legs.csv"):
        legs_of.setdefault((r["ticker"], r["t"]), []).append(r)
    # inception legs no longer in force, quoted at t (schemaVersion 6): the rest of the counterfactual's inputs
    departed_of = {}
    for r in rows(folder, "volatility_counterfactual_legs.csv"):
        departed_of.setdefault((r["ticker"], r["t"]), []).append(r)
    attribution_of = {}
    for r in rows(folder, "volatility_attribution.csv"):
        attribution_of.setdefault((r["ticker"], r["t"]), []).append(r)
    history = rows(folder, "volatility_history.csv")
    history.sort(key=lambda r: (r["ticker"], ms(r["t"])))

    for r in history:
        ticker, t = r["ticker"], r["t"]
        t_ms = ms(t)
        H_FILE, L_FILE, A_FILE = "volatility_history.csv", "volatility_legs.csv", "volatility_attribution.csv"

        def close(file, what, published, recomputed):
            rep.close(month, file, ticker, t, what, published, recomputed)

        def fail(file, what, published, recomputed):
            rep.fail(month, file, ticker, t, what, published, recomputed)

        d = defs.get(ticker)
        panel = sorted(legs_of.get((ticker, t), []), key=lambda l: int(l["grid_order"]))
        if d is None or not panel:
            fail(H_FILE, "computation", r["headline_pts"], "series definition or leg panel missing")
            continue
        rep.count("volatility computations")
        s = state.setdefault(ticker, Series())
        first_computation = r["attr_status"] == "unavailable"
        if s.known_from is None:
            # a series' history starts in DIR when this is its first computation
            s.known_from = dt.date.min if first_computation else day_of(t_ms) + dt.timedelta(days=1)
        gates = d["gates"]

        def leg_of(l):
            return {
                **l,
                "observed_ms": ms(l["observed_at"]) if l["observed_at"] else None,
                "settle_ms": ms(l["settlement_at"]) if l["settlement_at"] else None,
                "resolved": l["resolved"] == "true",
            }

        legs = [leg_of(l) for l in panel]
        departed = [leg_of(l) for l in departed_of.get((ticker, t), [])]
        check_fidelity(r, panel, rep, fail)
        live = [l for l in legs if l["observed_ms"] is not None]
        mids = [float(l["mid"]) for l in live]
        p = devig_multiplicative(mids)
        if p is None:
            fail(L_FILE, "p", "a probability vector", "mids sum to 0")
            continue
        days = [None if l["settle_ms"] is None else (l["settle_ms"] - t_ms) / MS_DAY for l in live]
        for l, pj, dj in zip(live, p, days):
            if l["p"] == "" or abs(float(l["p"]) - pj) > 1e-12:
                fail(L_FILE, f"leg {l['leg_key']} p", l["p"], pj)
            if (l["days_to_settlement"] == "") != (dj is None) or (dj is not None and abs(float(l["days_to_settlement"]) - dj) > 1e-9):
                fail(L_FILE, f"leg {l['leg_key']} days_to_settlement", l["days_to_settlement"], dj)
        order, v2 = vol_rules(r.get("methodology_version"), d["order"])
        pv, shapes = prepare(p, order, v2)
        V = budget_of(pv)
        for l, pj in zip(live, pv):
            w = (0.0 if pj <= 0 or pj >= 1 else pj * (1 - pj)) / V if V > 0 else 0.0
            if l["w"] == "" or abs(float(l["w"]) - w) > 1e-12:
                fail(L_FILE, f"leg {l['leg_key']} w", l["w"], w)

        # the clock: each tenor's estimate from the increments of the hours before t
        clock = json.loads(r["clock_json"])
        for tau, pub in clock.items():
            window = max(30, math.ceil(float(tau)))
            if day_of(t_ms) - dt.timedelta(days=window - 1) < s.known_from:
                rep.count("clock estimates needing earlier months")
                continue
            rep.count("clock estimates")
            c = estimate_clock(s.days, t_ms, float(tau))
            if v2 and c["tier"] == "budget-implied":
                c["speed"], c["speedLo"], c["speedHi"] = PRIOR[order]
            for field in ("tier", "speed", "speedLo", "speedHi", "windowDays", "coverage"):
                if c[field] != pub[field]:
                    fail(H_FILE, f"clock {tau}d {field}", pub[field], c[field])
        tiers = [clock[str(tau)]["tier"] for tau in d["tenors"] if str(tau) in clock]
        label = "rv-clock.v2" if "historical-clock" in tiers else "calendar.v1"
        if r["clock_version"] != label:
            fail(H_FILE, "clock_version", r["clock_version"], label)

        def speed(tau):
            return clock[str(int(tau)) if float(tau).is_integer() else str(tau)]["speed"]

        def clock_of(tau):
            return clock[str(int(tau)) if float(tau).is_integer() else str(tau)]

        # tenor values, shares, share intervals, leg tenor points
        sides = {"mid": mids, "bid": [float(l["bid"]) for l in live], "ask": [float(l["ask"]) for l in live]}
        scenarios = []
        for side in ("mid", "bid", "ask"):
            for method in (devig_multiplicative, devig_power, devig_shin):
                q = method(sides[side])
                if q is not None:
                    scenarios.append(q)

        prepared = []
        for q in scenarios:
            qv, qshapes = prepare(q, order, v2)
            prepared.append((qv, qshapes, budget_of(qv)))
        envelopes = {}  # by tenor: the headline tenor is usually one of the series' tenors

        def envelope(tau):
            if float(tau) in envelopes:
                return envelopes[float(tau)]
            c = clock_of(tau)
            speeds = [c["speed"], c["speedLo"], c["speedHi"]]
            pts, shares = [], []
            for qv, qshapes, Vq in prepared:
                for sp in speeds:
                    for kind in ("diffusion", "linear"):
                        v = part_variance(qv, qshapes, days, tau, sp, kind)
                        pts.append(100 * math.sqrt(v))
                        if Vq > 0:
                            shares.append(v / Vq)
            envelopes[float(tau)] = pts, shares
            return pts, shares

        tenors = json.loads(r["tenors_json"])
        leg_pts = {}
        for tau in d["tenors"]:
            legv = [leg_var(pj, sh, rho_of(tau, dj, speed(tau))) for pj, sh, dj in zip(pv, shapes, days)]
            leg_pts[tau] = [100 * math.sqrt(v) for v in legv]
            v = fsum_ordered(legv)
            pub = tenors.get(str(tau))
            if pub is None:
                fail(H_FILE, f"{tau}d", "absent", "a tenor of the series")
                continue
            close(H_FILE, f"{tau}d pts", pub["pts"], 100 * math.sqrt(v))
            share = v / V if V > 0 else 0.0
            close(H_FILE, f"{tau}d share", pub["share"], share)
            _, shares = envelope(tau)
            if V > 0 and shares:
                if pub["share_ci"] is None:
                    fail(H_FILE, f"{tau}d share_ci", "null", "an interval")
                else:
                    close(H_FILE, f"{tau}d share_ci lo", pub["share_ci"][0], min(min(shares), share))
                    close(H_FILE, f"{tau}d share_ci hi", pub["share_ci"][1], max(max(shares), share))
            elif pub["share_ci"] is not None:
                fail(H_FILE, f"{tau}d share_ci", pub["share_ci"], "null (budget 0)")
        for j, l in enumerate(live):
            pub = json.loads(l["tenor_pts_json"] or "null") or {}
            for tau in d["tenors"]:
                if str(tau) in pub:
                    close(L_FILE, f"leg {l['leg_key']} {tau}d pts", pub[str(tau)], leg_pts[tau][j])
        H = d["H"]
        headline = 100 * math.sqrt(part_variance(pv, shapes, days, H, speed(H)))
        close(H_FILE, "headline_pts", r["headline_pts"], headline)
        band, _ = envelope(H)
        close(H_FILE, "band_lo_pts", r["band_lo_pts"], min(band + [headline]))
        close(H_FILE, "band_hi_pts", r["band_hi_pts"], max(band + [headline]))
        close(H_FILE, "fbv_r_pts", r["fbv_r_pts"], 100 * math.sqrt(V))

        # the clock increment this hour adds (which hours count, realized and predicted)
        prev = s.prev
        if prev is not None and prev["t"] == r["attr_delta_from"]:
            dt_ms = t_ms - prev["t_ms"]
            by_id = {x["condition_id"]: x for x in prev["legs"]}
            counts = (
                dt_ms <= 3 * 3_600_000
                and r["status"] != "suspended"
                and len(live) == len(prev["legs"])
                and all(
                    l["condition_id"] in by_id
                    and (l["resolved"] or (by_id[l["condition_id"]]["observed_ms"] is not None and l["observed_ms"] > by_id[l["condition_id"]]["observed_ms"]))
                    for l in live
                )
            )
            if counts:
                realized = math.fsum((pj - by_id[l["condition_id"]]["p"]) * (pj - by_id[l["condition_id"]]["p"]) for l, pj in zip(live, p))
                # the diffusion's prediction over dt from the previous legs (floor and thresholds as they priced)
                predicted = part_variance(
                    [x["pv"] for x in prev["legs"]], [x["shape"] for x in prev["legs"]], [x["days"] for x in prev["legs"]], dt_ms / MS_DAY, 1
                )
                rep.count("clock increments")
                if r["clock_increment_realized"] == "" or r["clock_increment_predicted"] == "":
                    fail(H_FILE, "clock_increment", "empty", f"{realized!r} / {predicted!r}")
                else:
                    for what, pub, mine in (("realized", r["clock_increment_realized"], realized), ("predicted", r["clock_increment_predicted"], predicted)):
                        if abs(float(pub) - mine) > 1e-12 * max(1.0, abs(mine)) + 1e-15:
                            fail(H_FILE, f"clock_increment_{what}", pub, repr(mine))
            elif r["clock_increment_realized"] != "" or r["clock_increment_predicted"] != "":
                fail(H_FILE, "clock_increment", f"{r['clock_increment_realized']} / {r['clock_increment_predicted']}", "empty (the hour does not count)")
        elif prev is None and first_computation and (r["clock_increment_realized"] or r["clock_increment_predicted"]):
            fail(H_FILE, "clock_increment", r["clock_increment_realized"], "empty (first computation)")
        # the published increments feed the clock of the hours after t
        if r["clock_increment_realized"] != "" and r["clock_increment_predicted"] != "":
            s.days = add_clock_increment(s.days, t_ms, float(r["clock_increment_realized"]), float(r["clock_increment_predicted"]))

        # impact and de-vig gap, for the gates
        speed_h = speed(H)
        impact = []
        for j, l in enumerate(live):
            if l["resolved"]:
                impact.append(0.0)
                continue
            moves = []
            for side in (float(l["bid"]), float(l["ask"])):
                q = devig_multiplicative([side if i == j else m for i, m in enumerate(mids)])
                moves.append(0.0 if q is None else abs(100 * math.sqrt(part_variance(*prepare(q, order, v2), days, H, speed_h)) - headline))
            impact.append(max(moves))
        power = devig_power(mids)
        devig_gap = None if power is None else max(abs(a - b) for a, b in zip(p, power))

        # attribution: the move since the computation named in attr_delta_from
        identity = None
        attr_rows = attribution_of.get((ticker, t), [])
        if first_computation:
            if attr_rows:
                fail(A_FILE, "attribution", f"{len(attr_rows)} rows", "none on a first computation")
        elif prev is not None and prev["t"] == r["attr_delta_from"]:
            rep.count("attributions")
            close(H_FILE, "attr_delta_headline_pts", r["attr_delta_headline_pts"], headline - prev["headline"])
            delta2 = headline * headline - prev["headline"] * prev["headline"]
            close(H_FILE, "attr_delta_pts2", r["attr_delta_pts2"], delta2)
            now = {l["condition_id"]: (l, pj, dj, sh) for l, pj, dj, sh in zip(live, pv, days, shapes)}
            before = {x["condition_id"]: x for x in prev["legs"]}
            ids = list(dict.fromkeys([l["condition_id"] for l in live] + [x["condition_id"] for x in prev["legs"]]))
            published = {a["leg_key"]: a for a in attr_rows}
            f = lambda pj, sh, days_j, sp: PTS2 * leg_var(pj, sh, rho_of(H, days_j, sp))
            for cid in ids:
                b = before.get(cid)
                n = now.get(cid)
                p0, s0 = (b["pv"], b["shape"]) if b else (0.0, None)
                p1, s1 = (n[1], n[3]) if n else (0.0, None)
                c0 = (b["days"], prev["speed_h"]) if b else (n[2], speed_h)
                c1 = (n[2], speed_h) if n else (b["days"], prev["speed_h"])
                f00, f10, f01, f11 = f(p0, s0, *c0), f(p1, s1, *c0), f(p0, s0, *c1), f(p1, s1, *c1)
                price = (f10 - f00 + (f11 - f01)) / 2
                clk = (f01 - f00 + (f11 - f10)) / 2
                key = n[0]["leg_key"] if n else b["leg_key"]
                a = published.pop(key, None)
                rep.count("attribution legs")
                if a is None:
                    fail(A_FILE, f"leg {key} attribution", "no row", f"{price:.6f} / {clk:.6f}")
                    continue
                close(A_FILE, f"leg {key} delta_price", a["delta_price"], price)
                close(A_FILE, f"leg {key} delta_clock", a["delta_clock"], clk)
                close(A_FILE, f"leg {key} delta", a["delta"], f11 - f00)
            for key in published:
                fail(A_FILE, f"leg {key} attribution", "a row", "no such leg in either computation")
            identity = (r["attr_delta_pts2"], [x for a in attr_rows for x in (a["delta_price"], a["delta_clock"])])
            want = "ok" if abs(dec(r["attr_delta_pts2"]) - sum((dec(x) for x in identity[1]), D(0))) <= dec(gates["identityTolerance"]) else "identity_breach"
            if r["attr_status"] != want:
                fail(H_FILE, "attr_status", r["attr_status"], want)
        else:
            rep.count("attributions needing the previous month")

        # the counterfactual: inception legs (from the panel, or volatility_counterfactual_legs.csv for
        # those no longer in force), tenors and headline tenor, multiplicative, calendar clock
        cf = json.loads(r["counterfactual_json"] or "null")
        if cf is not None:
            config_row = inception.get((ticker, cf["anchorFingerprint"]))
            if config_row is None:
                rep.count("counterfactuals without their inception configuration")
            else:
                config = json.loads(config_row["config_json"])
                in_panel = {l["condition_id"] for l in legs}
                C_FILE = "volatility_counterfactual_legs.csv"
                for l in departed:
                    rep.count("counterfactual legs no longer in force")
                    if l["condition_id"] in in_panel:
                        fail(C_FILE, f"leg {l['leg_key']}", "an inception leg no longer in force", "in force (a row of volatility_legs.csv)")
                    elif l["condition_id"] not in config["legs"]:
                        fail(C_FILE, f"leg {l['leg_key']}", "an inception leg no longer in force", "not an inception leg (volatility_inception.csv)")
                    dj = None if l["settle_ms"] is None else (l["settle_ms"] - t_ms) / MS_DAY
                    if (l["days_to_settlement"] == "") != (dj is None) or (dj is not None and abs(float(l["days_to_settlement"]) - dj) > 1e-9):
                        fail(C_FILE, f"leg {l['leg_key']} days_to_settlement", l["days_to_settlement"], dj)
                by_id = {l["condition_id"]: l for l in departed}
                by_id.update({l["condition_id"]: l for l in legs})
                missing = [cid for cid in config["legs"] if cid not in by_id]
                if missing:
                    rep.count("counterfactuals with an inception leg in neither leg file")
                else:
                    rep.count("counterfactuals")
                    cl = [by_id[cid] for cid in config["legs"] if by_id[cid]["observed_ms"] is not None]
                    cp = devig_multiplicative([float(l["mid"]) for l in cl]) or [0.0] * len(cl)
                    cd = [None if l["settle_ms"] is None else (l["settle_ms"] - t_ms) / MS_DAY for l in cl]
                    cpv, cshapes = prepare(cp, order, v2)
                    cV = budget_of(cpv)
                    # the calendar clock: at the prior speed of the partition's kind from vol-2.0 on
                    calendar = PRIOR[order][0] if v2 else 1
                    for tau in config["tenorsDays"]:
                        v = part_variance(cpv, cshapes, cd, tau, calendar)
                        close(H_FILE, f"counterfactual {tau}d pts", cf["tenors"][str(tau)]["pts"], 100 * math.sqrt(v))
                        close(H_FILE, f"counterfactual {tau}d share", cf["tenors"][str(tau)]["share"], v / cV if cV > 0 else 0.0)
                    close(H_FILE, "counterfactual headlinePts", cf["headlinePts"], 100 * math.sqrt(part_variance(cpv, cshapes, cd, config["headlineTenorDays"], calendar)))
                    close(H_FILE, "counterfactual rPts", cf["rPts"], 100 * math.sqrt(cV))
                    for field in ("anchorAt", "clockVersion"):
                        if cf[field] != config[field]:
                            fail(H_FILE, f"counterfactual {field}", cf[field], config[field])

        # gates: the documented rules over the panel, in exact decimal
        live_index = {l["condition_id"]: j for j, l in enumerate(live)}
        impact_all = [impact[live_index[l["condition_id"]]] if l["condition_id"] in live_index else None for l in legs]
        pythag = []
        for tau in d["tenors"]:
            leg_published = []
            for l in legs:
                pub = json.loads(l["tenor_pts_json"] or "null") or {}
                leg_published.append(pub.get(str(tau), 0) if l["observed_ms"] is not None else 0)
            pythag.append((tenors.get(str(tau), {}).get("pts", 0), leg_published))
        status_checked = first_computation or identity is not None
        if status_checked:
            rep.count("gate decisions")
            status, names = decide_gates(gates, t_ms, legs, impact_all, devig_gap, pythag, identity)
            published_names = sorted(set(json.loads(r["gate_names_json"] or "[]")))
            if status != r["status"] or names != published_names:
                fail(H_FILE, "status [gates]", f"{r['status']} [{' '.join(published_names)}]", f"{status} [{' '.join(names)}]")
            pub_state = "withheld" if r["status"] == "suspended" else "published"
            if r["publication_state"] != pub_state:
                fail(H_FILE, "publication_state", r["publication_state"], pub_state)
        else:
            rep.count("gate decisions needing the previous month")

        s.prev = {
            "t": t,
            "t_ms": t_ms,
            "headline": headline,
            "speed_h": speed_h,
            "legs": [
                {"condition_id": l["condition_id"], "leg_key": l["leg_key"], "p": pj, "pv": pvj, "shape": sh, "days": dj, "observed_ms": l["observed_ms"]}
                for l, pj, pvj, sh, dj in zip(live, p, pv, shapes, days)
            ],
        }


# ---------------------------------------------------------------- the forecast record


def realized_move_pts(p0, p1):
    """100 * sqrt(sum over the legs priced at either end of (p1 - p0)^2), a leg missing at one end
    counting as 0; math.fsum, squares as x * x."""
    ids = set(p0) | set(p1)
    return 100 * math.sqrt(math.fsum((p1.get(i, 0.0) - p0.get(i, 0.0)) * (p1.get(i, 0.0) - p0.get(i, 0.0)) for i in ids))


def check_forecast_record(folder, month, rep, points, has_record):
    """volatility_forecast_record.csv: each window's expected move is the tenor's published points at
    its start, its realized move is recomputed from the leg panel's p at both ends; every window
    that closed in the month (both ends published) and starts in DIR has its row."""
    FILE = "volatility_forecast_record.csv"
    leg_p = {}
    for r in rows(folder, "volatility_legs.csv"):
        cell = leg_p.setdefault((r["ticker"], r["t"]), {})
        if r["p"] != "":
            cell[r["condition_id"]] = float(r["p"])
    tenors_of = {r["ticker"]: json.loads(r["tenors_days_json"]) for r in rows(folder, "volatility_series.csv")}
    first = None
    for r in rows(folder, "volatility_history.csv"):
        t_ms = ms(r["t"])
        first = t_ms if first is None else min(first, t_ms)
        pts = {k: v["pts"] for k, v in json.loads(r["tenors_json"]).items()}
        points.setdefault(r["ticker"], {})[t_ms] = (r["publication_state"] == "published", pts, leg_p.get((r["ticker"], r["t"]), {}))
    if not has_record:
        return
    published = {(r["ticker"], r["tenor_days"], r["window_start"]): r for r in rows(folder, FILE)}
    dir_start = min((min(m) for m in points.values() if m), default=0)
    for ticker, by_ms in points.items():
        for tau in tenors_of.get(ticker, []):
            for start_ms in sorted(by_ms):
                end_ms = start_ms + tau * MS_DAY
                if first is None or end_ms < first or end_ms not in by_ms:
                    continue
                (pub0, pts0, p0), (pub1, _, p1) = by_ms[start_ms], by_ms[end_ms]
                if not (pub0 and pub1) or str(tau) not in pts0:
                    continue
                start = dt.datetime.fromtimestamp(start_ms / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                rep.count("forecast record windows")
                r = published.pop((ticker, str(tau), start), None)
                if r is None:
                    rep.fail(month, FILE, ticker, start, f"{tau}d window", "no row", f"expected {pts0[str(tau)]} / realized {realized_move_pts(p0, p1):.6f}")
                    continue
                if ms(r["window_end"]) != end_ms:
                    rep.fail(month, FILE, ticker, start, f"{tau}d window_end", r["window_end"], end_ms)
                if float(r["expected_pts"]) != pts0[str(tau)]:
                    rep.fail(month, FILE, ticker, start, f"{tau}d expected_pts", r["expected_pts"], pts0[str(tau)])
                rep.close(month, FILE, ticker, start, f"{tau}d realized_pts", r["realized_pts"], realized_move_pts(p0, p1))
    for (ticker, tau, start), r in published.items():
        if ms(start) < dir_start:
            rep.count("forecast record windows starting before DIR")
        else:
            rep.fail(month, FILE, ticker, start, f"{tau}d window", "a row", "no such closed window (start or end not published)")


# ---------------------------------------------------------------- main


def month_folders(root):
    if os.path.exists(os.path.join(root, "index_levels.csv")):
        return [root]
    names = sorted(n for n in os.listdir(root) if re.fullmatch(r"\d{4}-\d{2}", n) and os.path.isdir(os.path.join(root, n)))
    return [os.path.join(root, n) for n in names]


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: python3 recompute_bundles.py DIR   (DIR: one month's folder, or YYYY-MM folders)", file=sys.stderr)
        return 2
    rep = Report()
    state, inception, record_points = {}, {}, {}
    folders = month_folders(argv[1])
    for folder in folders:
        month = os.path.basename(os.path.normpath(folder))
        manifest = check_manifest(folder, month, rep)
        check_index(folder, month, rep)
        if int(manifest.get("schemaVersion", 0)) >= 5:
            check_volatility(folder, month, rep, state, inception)
            # months before schemaVersion 7 have no record file but feed the windows that start in them
            check_forecast_record(folder, month, rep, record_points, int(manifest.get("schemaVersion", 0)) >= 7)
        else:
            # older layouts lack some inputs (increments, attribution, inception): levels only, and
            # the series' clocks and attribution start again from the next month's own rows
            rep.count("months with volatility inputs incomplete (schemaVersion < 5)")
            state.clear()
    for f in rep.failures:
        month, file, ticker, t, what, published, recomputed = f
        where = " ".join(x for x in (month, file, ticker, t) if x)
        print(f"DIFF {where} {what}: published {published}, recomputed {recomputed}")
    print(f"months: {', '.join(os.path.basename(os.path.normpath(x)) for x in folders) or 'none'}")
    for what in sorted(rep.counts):
        print(f"{what}: {rep.counts[what]}")
    print(f"largest index level difference: {rep.max_level_diff:.8f}")
    print(f"largest volatility difference: {rep.max_diff:.3e} (published to 6 decimals)")
    if rep.failures or not rep.counts.get("index levels"):
        print(f"FAILED: {len(rep.failures)} difference(s)")
        return 1
    print("OK: every published value recomputes from the bundle files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
