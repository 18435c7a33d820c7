import fs from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { ownDatabase, tempDataDir } from "../faults/support";

/**
 * A migrated database and a data directory of the test file's own, given to this process's root
 * (DATABASE_URL, DATA_DIR, the demo on, no Redis) before the file's tests, and closed, dropped and
 * removed after them. `url` is set once the file's beforeAll has run.
 */
export function demoProcessDatabase(label: string): { url: string } {
  const database = { url: "" };
  let drop: (() => Promise<void>) | undefined;
  let dataDir = "";
  beforeAll(async () => {
    const own = await ownDatabase(label);
    database.url = own.url;
    drop = own.drop;
    dataDir = tempDataDir(label);
    Object.assign(process.env, { DATABASE_URL: own.url, DATA_DIR: dataDir, REDIS_URL: "", DEMO_MARKET: "1" });
  });
  afterAll(async () => {
    const { closeRoot } = await import("@/lib/root");
    await closeRoot();
    await drop?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return database;
}
