import { calibrate, quantile } from "./lib/demo-calibration";

// `npx tsx --conditions=react-server scripts/vol-calibration.ts [--days 120] [--start ISO] [--seed N] [--every H] [--binary]`
//
// Prints, per ordered series of the demo, tenor and clock tier, truth / published expected variance
// (scripts/lib/demo-calibration.ts computes the truth from the simulator's parameters with its own
// numerics): the median, the 2.5% and 97.5% quantiles and the share of hours within 0.90-1.10;
// then the pooled clock speed per partition kind. `--binary` prices every partition as unordered.

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

function main() {
  const days = Number(arg("days", "120"));
  const seed = Number(arg("seed", "20261121"));
  const start = new Date(arg("start", "2026-07-31T09:00:00Z"));
  const every = Number(arg("every", "3"));
  const binary = process.argv.includes("--binary");
  const { samples, pooled } = calibrate({ days, seed, start, every, binary });
  console.log(
    `demo seed ${seed}, start ${start.toISOString()}, ${days} days, every ${every} h${binary ? ", every partition as unordered" : ""}`,
  );
  console.log("series        tenor  tier              hours  median  q2.5   q97.5  in 0.90-1.10");
  const groups = new Map<string, number[]>();
  for (const s of samples) {
    const k = `${s.ticker}|${s.tenor}|${s.tier}`;
    const list = groups.get(k) ?? [];
    list.push(s.ratio);
    groups.set(k, list);
  }
  for (const [k, list] of [...groups.entries()].sort()) {
    const [ticker, tenor, tier] = k.split("|") as [string, string, string];
    const sorted = [...list].sort((a, b) => a - b);
    const inside = list.filter((r) => r >= 0.9 && r <= 1.1).length / list.length;
    console.log(
      `${ticker.padEnd(13)} ${tenor.padStart(4)}d  ${tier.padEnd(17)} ${String(list.length).padStart(5)}  ${quantile(sorted, 0.5).toFixed(3)}   ${quantile(sorted, 0.025).toFixed(3)}  ${quantile(sorted, 0.975).toFixed(3)}  ${(100 * inside).toFixed(1)}%`,
    );
  }
  // the last week before settlement: a tenor of 7 days covers the whole remaining uncertainty (fbvRPts)
  for (const ticker of [...new Set(samples.map((s) => s.ticker))].sort()) {
    const week = samples.filter((s) => s.ticker === ticker && s.tenor === 7 && s.daysLeft <= 7);
    const last = week.map((s) => s.ratio).sort((a, b) => a - b);
    const raw = week.map((s) => s.ratioUnfloored).sort((a, b) => a - b);
    if (last.length > 0)
      console.log(
        `${ticker.padEnd(13)} last 7 days, truth / published remaining uncertainty: median ${quantile(last, 0.5).toFixed(3)}, q2.5 ${quantile(last, 0.025).toFixed(3)}, q97.5 ${quantile(last, 0.975).toFixed(3)}; without the one-tick floor median ${quantile(raw, 0.5).toFixed(3)}, q2.5 ${quantile(raw, 0.025).toFixed(3)} (${last.length} hours)`,
      );
  }
  for (const s of pooled)
    console.log(
      `pooled clock speed, ${s.kind}: ${s.speed.toFixed(4)} (95% ${s.lo.toFixed(4)} to ${s.hi.toFixed(4)}, ${s.days} days)`,
    );
}

main();
