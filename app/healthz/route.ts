import { dbHealth } from "@/lib/db";
import { appVersion } from "@/lib/version";

export const dynamic = "force-dynamic";

export async function GET() {
  const database = await dbHealth();
  const body = {
    status: database.ok ? "ok" : "unavailable",
    version: appVersion(),
    database: database.ok
      ? { reachable: true, serverVersion: database.version, latencyMs: database.latencyMs }
      : { reachable: false, error: database.error },
    time: new Date().toISOString(),
  };
  return Response.json(body, {
    status: database.ok ? 200 : 503,
    headers: { "Cache-Control": "no-store", ...(database.ok ? {} : { "Retry-After": "5" }) },
  });
}
