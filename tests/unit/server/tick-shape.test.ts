import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// scripts/lib/tick-shape.mjs: with one tick object held, the property definitions of
// process.nextTick's tick literal stay monomorphic after an idle full GC; without it they turn
// megamorphic (the V8 behaviour the module exists for: if that case stops reproducing, a newer
// Node no longer needs the module).
const child = path.join(__dirname, "tick-shape-child.mjs");

function literalFeedback(mode: "held" | "bare"): string[] {
  // Without concurrent recompilation: a compile job running on another thread holds the maps
  // while it runs, so whether the forced GC frees them would depend on thread timing.
  const flags = ["--allow-natives-syntax", "--expose-gc", "--no-concurrent-recompilation"];
  const run = spawnSync(process.execPath, [...flags, child, mode], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  const states = [...run.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1] ?? "");
  expect(states, "process.nextTick defines four properties in its tick literal").toHaveLength(4);
  return states;
}

describe("tick-shape", () => {
  it("without a held tick, an idle GC turns nextTick's literal definitions megamorphic", () => {
    expect(literalFeedback("bare").slice(1)).toEqual(["MEGAMORPHIC", "MEGAMORPHIC", "MEGAMORPHIC"]);
  });

  it("with the module imported, they stay monomorphic", () => {
    expect(literalFeedback("held")).toEqual(["MONOMORPHIC", "MONOMORPHIC", "MONOMORPHIC", "MONOMORPHIC"]);
  });
});
