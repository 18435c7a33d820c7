// @ts-check
// Database checks the command-line tools make before the application opens its own client.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

/** @param {string} url */
export function hostOf(url) {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

/**
 * Connects once with a short timeout; one line on failure, never a stack.
 * @param {string} url
 * @returns {Promise<{ ok: true } | { ok: false; message: string }>}
 */
export async function reachPostgres(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return { ok: true };
  } catch (error) {
    const e = /** @type {{ code?: string; message?: string }} */ (error);
    const reason = e.code || e.message?.split("\n")[0] || String(error);
    return { ok: false, message: `cannot reach PostgreSQL at ${hostOf(url)} (DATABASE_URL): ${reason}` };
  } finally {
    await client.end().catch(() => {});
  }
}

export function migrationNames() {
  const dir = path.resolve("prisma", "migrations");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort();
}

/**
 * Names of migrations not yet applied to the database at `url`.
 * @param {string} url
 * @returns {Promise<string[]>}
 */
export async function pendingMigrations(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const exists = await client.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
    if (!exists.rows[0].t) return migrationNames();
    const { rows } = await client.query(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Set(rows.map((r) => r.migration_name));
    return migrationNames().filter((n) => !applied.has(n));
  } finally {
    await client.end().catch(() => {});
  }
}
