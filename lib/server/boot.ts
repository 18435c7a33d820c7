import { config } from "@/lib/config";
import { closeDb, db, describeDbError } from "@/lib/db";
import { publishOperatorEndpoint } from "@/lib/operator/endpoint";
import { onShutdown, installShutdown } from "@/lib/server/shutdown";

/** Opens (and in embedded mode migrates) the database and starts background work. */
export async function boot(): Promise<void> {
  const c = config();
  installShutdown();
  try {
    await db();
  } catch (error) {
    // A running server keeps answering; /healthz and /v1 report `unavailable` until it returns.
    console.error(`[boot] ${describeDbError(error)}`);
    if (c.embedded) throw error;
  }
  onShutdown(closeDb, 100);
  if (c.embedded) publishOperatorEndpoint(c.PORT);
}
