import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { parseConfig } from "@/lib/config";
import { createDatabase } from "@/lib/db";
import { lockHolder } from "@/lib/db/embedded";

// Rule: the configuration is read at the top (the root, a script) and passed down. The embedded
// database opens in the DATA_DIR of the configuration its database was built from, whatever the
// process's environment names.

const given = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-embedded-given-"));
const environment = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-embedded-env-"));
const saved = process.env.DATA_DIR;
process.env.DATA_DIR = environment;

afterAll(() => {
  if (saved === undefined) delete process.env.DATA_DIR;
  else process.env.DATA_DIR = saved;
  for (const dir of [given, environment]) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the embedded database's directory", () => {
  test("is the DATA_DIR of the configuration the database is built from, not the environment's", async () => {
    const database = createDatabase(parseConfig({ NODE_ENV: "test", DATA_DIR: given } as NodeJS.ProcessEnv));
    try {
      const db = await database.client();
      expect(await db.$queryRaw<Array<{ one: number }>>`SELECT 1 AS one`).toEqual([{ one: 1 }]);
      expect(fs.existsSync(path.join(given, "pglite"))).toBe(true);
      expect(await lockHolder(given)).toBe(process.pid);
      expect(fs.readdirSync(environment)).toEqual([]);
    } finally {
      await database.close();
    }
    expect(await lockHolder(given)).toBeNull();
  }, 60_000);
});
