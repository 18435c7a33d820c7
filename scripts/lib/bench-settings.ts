// The benches' own settings (`npm run bench`, `bench:engine`, `bench:faults`), read from their
// environment here and nowhere else. They are not the product's configuration (lib/config.ts):
// a server under a bench gets its configuration from the environment the bench gives it.
const env = process.env;

export const benchSettings = {
  /** length of one measured run, in seconds (each bench has its own default) */
  seconds: (fallback: number) => Number(env.BENCH_SECONDS || fallback),
  /** every row this many times, the rows taking turns */
  rounds: Math.max(1, Number(env.BENCH_ROUNDS || 1)),
  /** only the rows whose label contains one of these words */
  only: (env.BENCH_ONLY ?? "")
    .split(",")
    .map((w) => w.trim())
    .filter(Boolean),
  /** which setups of `npm run bench` run */
  setups: (env.BENCH_SETUPS || "embedded,postgres,redis").split(",").map((w) => w.trim()),
  /** a directory for the server's V8 CPU profile */
  profile: env.BENCH_PROFILE,
  /** autocannon inside the bench's process instead of wrk */
  autocannon: env.BENCH_GENERATOR === "autocannon",
  /** the server pinned to CPU 0, the load generator to CPU 1 */
  pin: env.BENCH_PIN === "1",
  /** server processes (the product's WEB_CONCURRENCY, passed on to the server) */
  workers: Number(env.WEB_CONCURRENCY || 1),
  /** days of venue history the back-calculation bench computes */
  backCalculationDays: Number(env.BENCH_BACKCALC_DAYS ?? 90),
  /** the back-calculation bench's database: postgres (a fresh database on the local server) or embedded */
  backCalculationDatabase: env.BENCH_DATABASE === "embedded" ? ("embedded" as const) : ("postgres" as const),
  /** the back-calculation bench logs its steps */
  debug: Boolean(env.BENCH_DEBUG),
};
