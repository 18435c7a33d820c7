import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// `npm run bench:engine`: the demo's 120-day backfill from an empty embedded database, timed,
// with peak memory. Prints figures; it is a benchmark, not a test.
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bench-engine-"));
  process.env.DATA_DIR = dir;
  delete process.env.DATABASE_URL;
  const { db, closeDb } = await import("@/lib/db");
  const { catchUp, BACKFILL_DAYS, flushTiming } = await import("@/lib/ingest/engine-runner");
  const { config } = await import("@/lib/config");
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t0 = performance.now();
  const prisma = await db();
  const opened = performance.now();
  const r = await catchUp(prisma, { seed: config().DEMO_SEED });
  const done = performance.now();
  clearInterval(sampler);
  const counts = {
    levels: await prisma.indexLevel.count(),
    ticks: await prisma.volatilityTick.count(),
    snapshots: await prisma.marketSnapshot.count(),
    reconstitutions: await prisma.reconstitutionEvent.count(),
  };
  await closeDb();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`backfill of ${BACKFILL_DAYS} days (${r.hours} hours) into embedded PGlite`);
  console.log(`  open + migrate : ${((opened - t0) / 1000).toFixed(1)} s`);
  console.log(`  compute + write: ${((done - opened) / 1000).toFixed(1)} s   (target: under 60 s)`);
  console.log(`  of which writes: ${(flushTiming.ms / 1000).toFixed(1)} s`);
  console.log(`  peak RSS       : ${(peak / 2 ** 20).toFixed(0)} MiB   (target: under 1024 MiB)`);
  console.log(`  rows           : ${JSON.stringify(counts)}`);
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
