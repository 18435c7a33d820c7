import "server-only";
import { randomUUID } from "node:crypto";
import { errorBody } from "@/lib/api/errors";
import { config } from "@/lib/config";

/** Paths under /v1 that are no endpoint: the JSON error shape, never an HTML page. */
export function unknownRoute() {
  const run = async (): Promise<Response> => {
    const requestId = randomUUID();
    const body = errorBody("not_found", "No such endpoint. GET /v1 lists the endpoints.", requestId, config().baseUrl);
    return Response.json(body, { status: 404, headers: { "X-Request-Id": requestId, "Cache-Control": "no-store" } });
  };
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}
