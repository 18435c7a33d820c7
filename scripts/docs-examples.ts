import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";

// `npm run docs:examples`: regenerates content/docs/examples/*.json from the demo market through
// the real endpoint handlers (an embedded database in a temporary directory), so every example
// response in the docs is produced by the API's own code, not typed by hand. The demo's path
// depends on when its backfill starts, so the examples are illustrative: generated.json records
// when and from which seed they were made, and the docs say so. It also downloads the demo's
// closed-month bundles to disk and runs the bundle verifier on them (bundles-verify.json).
const OUT = path.resolve("content/docs/examples");

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-docs-examples-"));
  Object.assign(process.env, {
    DATA_DIR: dir,
    DATABASE_URL: "",
    REDIS_URL: "",
    PUBLIC_BASE_URL: process.env.DOCS_BASE_URL || "https://api.example.com",
  });
  const { config } = await import("@/lib/config");
  const { runBackfill } = await import("@/lib/server/backfill");
  const { buildMissingBundles } = await import("@/lib/snapshots/build-bundles");
  const { endpoints } = await import("@/lib/api/endpoints");
  const { envelope } = await import("@/lib/api/pipeline");
  const { root, closeRoot } = await import("@/lib/root");
  const { ensureUser, mintKey } = await import("@/lib/keys/manage-keys");
  const { monthManifest } = await import("@/lib/snapshots/read-bundles");
  const { formatFailure, verifyBundles } = await import("@/lib/snapshots/verify-bundles");
  const { formatMicros } = await import("@/lib/engine/time-format");
  const prisma = await root().db();
  const generatedAt = new Date();
  // the demo computed as a fresh `npm start` computes it: the start-up backfill in chunks (each its own
  // transaction, reloading the engine's and the demo's stored states), so the verifier's run below is
  // the run a user of the server's bundles gets
  await runBackfill(prisma, { seed: config().DEMO_SEED, now: generatedAt }, config().embedded, () => undefined);
  await buildMissingBundles(prisma);
  const { key } = await mintKey(prisma, await ensureUser(prisma, "docs@example.com"));
  const resolved = (await root().keys.verify(key))!;

  const run = async (name: keyof typeof endpoints, params: Record<string, string> = {}, query = "") => {
    const decision = await root().limiter.spend(resolved, Date.now());
    const payload = await endpoints[name].handler({
      services: root(),
      requestId: "req_example",
      key: resolved,
      decision,
      query: new URLSearchParams(query),
      params,
    });
    return envelope(root(), payload as { data: unknown; meta?: Record<string, unknown> });
  };
  const write = (file: string, value: unknown) =>
    fs.writeFileSync(path.join(OUT, file), `${JSON.stringify(value, null, 2)}\n`);

  const catalog = (await run("indices")) as { data: { indices: Array<{ ticker: string; publicStatus: string }> } };
  const ticker = catalog.data.indices.find((i) => i.ticker === "PMX-ELEC")?.ticker ?? catalog.data.indices[0]!.ticker;
  const series = "PMV-FED";
  const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
  write("service-index.json", await run("service"));
  write("indices.json", catalog);
  write("index-latest.json", await run("indexLatest", { ticker }));
  write("index-history.json", await run("indexHistory", { ticker }, `start=${weekAgo}&interval=1d`));
  write(
    "index-history-clamped.json",
    await run("indexHistory", { ticker }, "start=2020-01-01T00:00:00Z&end=2020-02-01T00:00:00Z"),
  );
  write("reconstitutions.json", await run("indexReconstitutions", { ticker }, "limit=3"));
  write("volatility-catalog.json", await run("volatility"));
  const latest = (await run("volatilityLatest", { ticker: series })) as {
    data: { tick: { gateFlags: unknown[] } };
    meta: unknown;
  };
  write("volatility-latest.json", latest);
  write("volatility-history.json", await run("volatilityHistory", { ticker: series }, "limit=3"));
  write("downloads.json", await run("downloads"));
  write("meta.json", latest.meta);
  const flagged = await prisma.volatilityTick.findFirst({
    where: { status: "flagged" },
    orderBy: { computedAt: "desc" },
    select: { gateFlags: true },
  });
  write("gate-flags.json", flagged?.gateFlags ?? []);
  const { latestManifestWithArchives } = await import("@/lib/snapshots/archive");
  const manifest = await latestManifestWithArchives(prisma, config().baseUrl);
  write("manifest-latest.json", manifest);
  const lastMonth = manifest.months.at(-1);
  if (lastMonth) write("manifest-month.json", await monthManifest(prisma, lastMonth.month));
  const engine = await prisma.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } });
  const firstLevel = await prisma.indexLevel.findFirst({ orderBy: { t: "asc" }, select: { t: true } });
  write("generated.json", {
    generatedAt: formatMicros(generatedAt),
    demoSeed: config().DEMO_SEED,
    demoStart: firstLevel ? formatMicros(firstLevel.t) : null,
    lastComputedHour: engine ? formatMicros(engine.lastTickAt) : null,
    note: "Illustrative: produced by `npm run docs:examples` from the demo market backfilled up to generatedAt. A running demo backfills from its own start time, so its values for the same ticker and time differ.",
  });
  const bundleDir = path.join(dir, "bundles");
  for (const f of await prisma.snapshotFile.findMany({ select: { month: true, name: true, content: true } })) {
    fs.mkdirSync(path.join(bundleDir, f.month), { recursive: true });
    fs.writeFileSync(path.join(bundleDir, f.month, f.name), f.content);
  }
  for (const b of await prisma.snapshotBundle.findMany({ select: { month: true, manifest: true } })) {
    fs.writeFileSync(path.join(bundleDir, b.month, "manifest.json"), JSON.stringify(b.manifest));
  }
  const verified = verifyBundles(bundleDir);
  // and the outside script (Python's standard library) on the same folders
  const outside = spawnSync("python3", ["scripts/outside/recompute_bundles.py", bundleDir], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const outsideLines = (outside.stdout ?? "").split("\n");
  write("bundles-verify.json", {
    generatedAt: formatMicros(generatedAt),
    months: verified.months,
    indexHoursChecked: verified.index.hours,
    indices: verified.index.indices,
    largestLevelDifference: verified.index.maxLevelDiff,
    compositionBasesChecked: verified.index.basesChecked,
    largestBaseDifference: verified.index.maxBaseDiff,
    volatilityComputations: verified.volatility.computations,
    volatilityValuesChecked: verified.volatility.valuesChecked,
    largestVolatilityDifference: verified.volatility.maxValueDiff,
    gateDecisionsChecked: verified.volatility.gateDecisionsChecked,
    gateDecisionMismatches: verified.volatility.gateMismatches,
    attributionLegsChecked: verified.volatility.attributionLegsChecked,
    clockEstimatesChecked: verified.volatility.clocksChecked,
    counterfactualsChecked: verified.volatility.counterfactualsChecked,
    forecastRecordWindowsChecked: verified.volatility.recordWindowsChecked,
    manifestFilesChecked: verified.integrity.filesChecked,
    failureCount:
      verified.integrity.failures.length + verified.index.failures.length + verified.volatility.failures.length,
    failures: [...verified.integrity.failures, ...verified.index.failures, ...verified.volatility.failures]
      .slice(0, 20)
      .map(formatFailure),
    outside: {
      command: "python3 scripts/outside/recompute_bundles.py DIR",
      exitStatus: outside.status,
      differences: outsideLines.filter((l) => l.startsWith("DIFF")).length,
      summary: outsideLines.filter((l) =>
        /^(months|forecast record windows|clock estimates|volatility computations|largest|OK|FAILED)\b/.test(l),
      ),
    },
  });
  await closeRoot();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`wrote ${fs.readdirSync(OUT).length} examples to ${path.relative(process.cwd(), OUT)}`);
  process.exit(0);
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
