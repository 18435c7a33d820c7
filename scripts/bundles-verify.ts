import { verifyBundles } from "@/lib/snapshots/verify-bundles";

// `npm run bundles:verify -- DIR`: recomputes every hourly index level and every volatility value
// of downloaded monthly bundles (DIR holds YYYY-MM folders, or one month's files) from the files alone.
const dir = process.argv[2];
if (!dir) {
  console.error("usage: npm run bundles:verify -- DIR   (DIR holds YYYY-MM folders or one month's CSV files)");
  process.exit(2);
}
try {
  const r = verifyBundles(dir);
  const { index: i, volatility: v } = r;
  console.log(`months: ${r.months.join(", ") || "none"}`);
  console.log(`index levels: ${i.hours} hours of ${i.indices} indices recomputed (${i.fromHistory} of them back-calculated or filled from venue history); largest difference ${i.maxLevelDiff} (8 decimals)`);
  console.log(`composition bases (inception baskets, chain links): ${i.basesChecked} checked; largest difference ${i.maxBaseDiff}`);
  console.log(
    `volatility: ${v.computations} computations of ${v.series} series (${v.fromHistory} back-calculated or history-filled); ${v.valuesChecked} values recomputed, largest difference ${v.maxValueDiff.toExponential(3)} (published to 6 decimals)`,
  );
  console.log(`gate decisions: ${v.gateDecisionsChecked} recomputed, ${v.gateMismatches} differ${v.identityUnchecked ? `; ${v.identityUnchecked} need the previous month's files for the identity gate` : ""}`);
  const problems = [...i.problems, ...v.problems];
  for (const p of problems.slice(0, 20)) console.log(`  problem: ${p}`);
  const ok = problems.length === 0 && i.hours > 0 && new Number(i.maxLevelDiff).valueOf() === 0 && v.gateMismatches === 0;
  console.log(ok ? "OK: every published value recomputes from the bundle files" : "FAILED");
  process.exit(ok ? 0 : 1);
} catch (error) {
  console.error(`bundles:verify: ${(error as Error).message}`);
  process.exit(2);
}
