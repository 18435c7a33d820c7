import pg from "pg";
import { testPgAdminUrl } from "../../support/test-env";

export const adminUrl = testPgAdminUrl;

/** A URL for database `name` on the test server. Refuses anything but a local server. */
export function databaseUrl(name: string): string {
  const u = new URL(adminUrl);
  if (!["127.0.0.1", "localhost", "::1"].includes(u.hostname)) throw new Error(`refusing non-local test database ${u.hostname}`);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createDatabase(name: string): Promise<string> {
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return databaseUrl(name);
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
