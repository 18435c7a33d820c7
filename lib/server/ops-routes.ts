import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, ERRORS } from "@/lib/api/errors";
import { writeResult } from "@/lib/api/node-adapter";
import { errorResult, jsonResult, newRequestId } from "@/lib/api/responses";
import { root } from "@/lib/root";
import { appVersion } from "@/lib/version";

// What the production server answers for its operators, before the front and Next:
// - /livez: the process answers (touches no dependency): the container's HEALTHCHECK and systemd;
// - /readyz: this instance should get traffic: booted, not stopping, the database and Redis (when
//   configured) answering, the start-up catch-up done: load balancers;
// - /metrics: Prometheus text, to loopback or with the operator token (METRICS_TOKEN), never public.
// /healthz stays as documented (Next's route, app/healthz/route.ts).

export const OPS_PATHS = new Set(["/livez", "/readyz", "/metrics"]);

export interface OpsState {
  /** True once a stop began: readiness answers 503 so balancers move traffic away. */
  stopping(): boolean;
  /** The metrics text, when not this process's registry alone (a cluster's workers: every worker's). */
  metrics?: () => Promise<string>;
}

function noStore(requestId: string): Record<string, string> {
  return { "X-Request-Id": requestId, "Cache-Control": "no-store" };
}

/** Whether an address is this host's loopback (IPv4, IPv6, IPv4-mapped IPv6). */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === "::1" || /^::ffff:127\./i.test(address);
}

/**
 * Metrics go to a scraper on this host, or to one presenting METRICS_TOKEN. A request that came
 * through a proxy (it carries forwarding headers) is not taken for a local one unless TRUST_PROXY
 * names the client, who must then be local too.
 */
export function metricsAllowed(req: IncomingMessage, peer: string): boolean {
  const { config: c } = root();
  const token = c.METRICS_TOKEN;
  const auth = req.headers.authorization;
  if (token && typeof auth === "string" && auth.startsWith("Bearer ")) {
    const given = Buffer.from(auth.slice(7).trim());
    const want = Buffer.from(token);
    if (given.length === want.length && timingSafeEqual(given, want)) return true;
  }
  const forwarded = req.headers["x-forwarded-for"] ?? req.headers.forwarded ?? req.headers["x-real-ip"];
  if (forwarded === undefined) return isLoopback(peer);
  if (!c.TRUST_PROXY) return false;
  const client = String(forwarded).split(",")[0]!.trim();
  return isLoopback(peer) && isLoopback(client);
}

/** Readiness: each check and the verdict. Never throws. */
export async function readiness(state: OpsState): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const r = root();
  const [database, redis] = await Promise.all([r.database.health(), r.redis.health()]);
  const redisDown = redis.configured && !redis.ok;
  const starting = r.progress.state === "running";
  const stopping = state.stopping();
  const ok = database.ok && !redisDown && !starting && !stopping;
  const body = {
    status: ok ? "ready" : stopping ? "stopping" : starting && database.ok && !redisDown ? "starting" : "unavailable",
    instance: r.instanceId,
    version: appVersion(),
    checks: {
      database: database.ok ? "ok" : "unavailable",
      redis: !redis.configured ? "not_configured" : redis.ok ? "ok" : "unavailable",
      backfill: r.progress.state,
      stopping,
    },
  };
  return { ok, body };
}

/**
 * Answers /livez, /readyz and /metrics; false for any other path (the front and Next answer it).
 * Only GET and HEAD; the answers carry X-Request-Id and the spec's error shape.
 */
export function answerOps(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  peer: string,
  state: OpsState,
): boolean {
  if (!OPS_PATHS.has(path)) return false;
  const requestId = newRequestId();
  if (req.method !== "GET" && req.method !== "HEAD") {
    writeResult(
      req,
      res,
      errorResult(
        new ApiError("method_not_allowed", {
          message: `${path} answers GET and HEAD.`,
          headers: { Allow: "GET, HEAD" },
        }),
        requestId,
      ),
    );
    return true;
  }
  if (path === "/livez") {
    writeResult(req, res, jsonResult({ status: "ok", instance: root().instanceId }, 200, noStore(requestId)));
    return true;
  }
  if (path === "/readyz") {
    void readiness(state).then(({ ok, body }) => {
      const headers = {
        ...noStore(requestId),
        ...(ok ? {} : { "Retry-After": String(ERRORS.unavailable.retryAfter) }),
      };
      writeResult(req, res, jsonResult(body, ok ? 200 : 503, headers));
    });
    return true;
  }
  if (!metricsAllowed(req, peer)) {
    const message =
      "Metrics are served to this host's loopback address, or with the operator's token (Authorization: Bearer METRICS_TOKEN).";
    writeResult(req, res, errorResult(new ApiError("error", { status: 403, message }), requestId));
    return true;
  }
  const { registry } = root().metrics;
  void (state.metrics ?? (() => registry.metrics()))().then(
    (text) =>
      writeResult(req, res, {
        status: 200,
        headers: { ...noStore(requestId), "Content-Type": registry.contentType },
        body: text,
      }),
    (error: unknown) =>
      writeResult(
        req,
        res,
        errorResult(
          new ApiError("internal_error", { message: `metrics could not be collected: ${(error as Error).message}` }),
          requestId,
        ),
      ),
  );
  return true;
}
