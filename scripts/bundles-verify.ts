import { formatFailure, verified, verifyBundles } from "@/lib/snapshots/verify-bundles";

// `npm run bundles:verify -- DIR`: checks every file of downloaded monthly bundles against its
// month's manifest.json (sha256, bytes, rows), then recomputes every hourly index level and every
// volatility value and gate decision from the files alone (DIR holds YYYY-MM folders, or one
// month's files). Prints every row that fails (file, ticker, hour, published, recomputed), then a summary.
const dir = process.argv[2];
if (!dir) {
  console.error(
    "usage: npm run bundles:verify -- DIR   (DIR holds YYYY-MM folders or one month's files with its manifest.json)",
  );
  process.exit(2);
}
try {
  const r = verifyBundles(dir);
  const { integrity: m, index: i, volatility: v } = r;
  const failures = [...m.failures, ...i.failures, ...v.failures];
  for (const f of failures) console.log(`FAIL ${formatFailure(f)}`);
  console.log(`months: ${r.months.join(", ") || "none"}`);
  console.log(`manifest: ${m.filesChecked} files checked (sha256, bytes, rows); ${m.failures.length} differ`);
  console.log(
    `index levels: ${i.hours} hours of ${i.indices} indices recomputed (${i.fromHistory} of them back-calculated or filled from venue history${i.coarseHistory ? `, ${i.coarseHistory} from venue history coarser than hourly (history_fidelity_minutes)` : ""}); largest difference ${i.maxLevelDiff} (8 decimals); ${i.failures.length} rows fail`,
  );
  console.log(
    `composition bases (inception baskets, chain links): ${i.basesChecked} checked; largest difference ${i.maxBaseDiff}`,
  );
  console.log(
    `volatility: ${v.computations} computations of ${v.series} series (${v.fromHistory} back-calculated or history-filled${v.coarseHistory ? `, ${v.coarseHistory} from venue history coarser than hourly (history_fidelity_minutes)` : ""}); ${v.valuesChecked} values recomputed, largest difference ${v.maxValueDiff.toExponential(3)} (published to 6 decimals); ${v.failures.length - v.gateMismatches} values fail`,
  );
  console.log(
    `per-leg attribution: ${v.attributionLegsChecked} legs recomputed; clock estimates from the hourly increments: ${v.clocksChecked} recomputed${v.clockUnchecked ? `, ${v.clockUnchecked} need earlier months' files` : ""}`,
  );
  console.log(
    `counterfactuals (inception legs, calendar clock): ${v.counterfactualsChecked} recomputed${v.counterfactualUnchecked ? `, ${v.counterfactualUnchecked} without their inputs in DIR` : ""}`,
  );
  console.log(
    `forecast record: ${v.recordWindowsChecked} windows recomputed${v.recordUnchecked ? `, ${v.recordUnchecked} start before DIR` : ""}`,
  );
  console.log(
    `gate decisions (documented rules, exact decimal): ${v.gateDecisionsChecked} recomputed, ${v.gateMismatches} differ${v.identityUnchecked ? `; ${v.identityUnchecked} need the previous month's files for the identity gate` : ""}`,
  );
  const ok = verified(r);
  console.log(
    ok
      ? "OK: every file matches its manifest and every published value recomputes from the bundle files"
      : `FAILED: ${failures.length} failing row(s) listed above`,
  );
  // exitCode, not exit(): a piped stdout (`| tail`) is written out before the process ends
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  console.error(`bundles:verify: ${(error as Error).message}`);
  process.exitCode = 2;
}
