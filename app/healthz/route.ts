import { ERRORS } from "@/lib/api/errors";
import { appVersion } from "@/lib/version";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

/**
 * Liveness and each dependency: `database` and `redis` (when configured), each with `status`
 * ok / unavailable; 503 with Retry-After while any configured dependency is down. `backfill`
 * reports the engine's start-up catch-up, which runs while the server already serves pages and
 * the API; until it is done the status is `starting` (503, so a load balancer or a test waits
 * for complete data).
 */
export async function GET() {
  const [database, redis] = await Promise.all([root().database.health(), root().redis.health()]);
  const redisDown = redis.configured && !redis.ok;
  const backfill = root().progress;
  const starting = backfill.state === "running";
  const ok = database.ok && !redisDown && !starting;
  const body = {
    status: ok ? "ok" : starting && database.ok && !redisDown ? "starting" : "unavailable",
    version: appVersion(),
    database: database.ok
      ? { status: "ok", reachable: true, serverVersion: database.version, latencyMs: database.latencyMs }
      : { status: "unavailable", reachable: false, error: database.error },
    redis: !redis.configured
      ? { status: "not_configured" }
      : redis.ok
        ? { status: "ok", reachable: true, latencyMs: redis.latencyMs }
        : { status: "unavailable", reachable: false, error: redis.error },
    backfill: {
      state: backfill.state,
      hoursDone: backfill.hoursDone,
      hoursTotal: backfill.hoursTotal,
      through: backfill.through,
      // the start-up's work after the catch-up (bundle builds among it) still runs; the status does not wait for it
      pending: backfill.pending,
    },
    time: new Date().toISOString(),
  };
  return Response.json(body, {
    status: ok ? 200 : 503,
    headers: { "Cache-Control": "no-store", ...(ok ? {} : { "Retry-After": String(ERRORS.unavailable.retryAfter) }) },
  });
}
