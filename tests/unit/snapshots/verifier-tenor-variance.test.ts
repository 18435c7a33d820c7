import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { normInv } from "@/lib/engine/volatility/normal";
import { orderedLegVariance } from "@/lib/engine/volatility/ordered";
import { volRulesOf } from "@/lib/snapshots/verify-bundles";

// Rule (recomputing, "volatility"): both verifiers recompute a row under the rules of its
// methodology_version: from vol-2.0 on the series' partition order, the one-tick floor and the
// calendar prior; before it, every leg as a binary, no floor, speed 1. The outside script
// (scripts/outside/recompute_bundles.py) has its own cumulative form (its own quadrature and its
// own port of the bivariate normal): it must agree with the engine's to the published precision.

const GRID = [
  { p: [0.2, 0.5, 0.3], rho: 0.25 },
  { p: [0.05, 0.15, 0.3, 0.3, 0.15, 0.05], rho: 0.001 },
  { p: [0.05, 0.15, 0.3, 0.3, 0.15, 0.05], rho: 0.45 },
  { p: [0.6, 0.3, 0.1], rho: 0.7 },
  { p: [0.01, 0.97, 0.02], rho: 0.95 },
  { p: [0.08, 0.12, 0.2, 0.25, 0.18, 0.11, 0.06], rho: 0.999 },
];

function engineLegs(p: readonly number[], rho: number): number[] {
  let below = 0;
  return p.map((pj, j) => {
    const up = j === p.length - 1 ? 1 : below + pj;
    const a = below <= 0 ? Number.NEGATIVE_INFINITY : normInv(below);
    const b = up >= 1 ? Number.POSITIVE_INFINITY : normInv(up);
    below = up;
    return orderedLegVariance(a, b, pj, rho);
  });
}

describe("the verifiers' tenor-variance rules", () => {
  it("pick the rules by methodology_version: vol-2.0 on honours the partition order, earlier rows are unordered with no floor", () => {
    expect(volRulesOf("vol-2.0", "ordered")).toEqual({ order: "ordered", v2: true });
    expect(volRulesOf("vol-2.1", "unordered")).toEqual({ order: "unordered", v2: true });
    expect(volRulesOf("vol-1.0", "ordered")).toEqual({ order: "unordered", v2: false });
    expect(volRulesOf("vol-1.3", undefined)).toEqual({ order: "unordered", v2: false });
    expect(volRulesOf(undefined, "ordered")).toEqual({ order: "unordered", v2: false });
  });

  it("the outside script's cumulative form agrees with the engine's on every leg (relative 1e-9)", () => {
    const code = [
      "import importlib.util, json, sys",
      "spec = importlib.util.spec_from_file_location('rb', 'scripts/outside/recompute_bundles.py')",
      "rb = importlib.util.module_from_spec(spec); spec.loader.exec_module(rb)",
      "out = []",
      "for case in json.loads(sys.argv[1]):",
      "    pv, shapes = rb.prepare(case['p'], 'ordered', True)",
      "    out.append([rb.leg_var(pj, sh, case['rho']) for pj, sh in zip(pv, shapes)])",
      "print(json.dumps(out))",
    ].join("\n");
    const run = spawnSync("python3", ["-c", code, JSON.stringify(GRID)], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const python = JSON.parse(run.stdout) as number[][];
    GRID.forEach(({ p, rho }, i) => {
      engineLegs(p, rho).forEach((v, j) => {
        const other = python[i]?.[j] as number;
        expect(Math.abs(other - v), `case ${i} leg ${j}: python ${other}, engine ${v}`).toBeLessThanOrEqual(
          1e-9 * Math.max(v, 1e-12) + 1e-15,
        );
      });
    });
  });
});
