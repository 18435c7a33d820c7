import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { applyMigrations } from "@/lib/db/migrate";
import { NameAsTextPool } from "@/lib/db/pg-pool";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { testPgAdminUrl } from "../../support/test-env";

export const adminUrl = testPgAdminUrl;

/** A URL for database `name` on the test server. Refuses anything but a local server. */
export function databaseUrl(name: string): string {
  const u = new URL(adminUrl);
  if (!["127.0.0.1", "localhost", "::1"].includes(u.hostname))
    throw new Error(`refusing non-local test database ${u.hostname}`);
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

/**
 * A new database `name` with every migration applied, and a Prisma client on a pool of its own
 * (the tests that drive the engine, the collector or the bundles directly, without a server).
 */
export async function migratedDatabase(
  name: string,
): Promise<{ url: string; pool: NameAsTextPool; prisma: PrismaClient }> {
  const url = await createDatabase(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await applyMigrations({
      exec: (sql) => client.query(sql),
      query: (sql, params) => client.query(sql, params) as never,
    });
  } finally {
    await client.end();
  }
  const pool = new NameAsTextPool({ connectionString: url, max: 4 });
  return { url, pool, prisma: new PrismaClient({ adapter: new PrismaPg(pool) }) };
}

export type OwnDatabase = Awaited<ReturnType<typeof migratedDatabase>> & { name: string; drop: () => Promise<void> };

/**
 * A migrated database of the test file's own, named uniquely from `prefix`, with `drop` closing
 * its client and pool and dropping it (also dropped here when the migration fails).
 */
export async function ownMigratedDatabase(prefix: string): Promise<OwnDatabase> {
  const name = uniqueName(prefix);
  const made = await migratedDatabase(name).catch(async (error: unknown) => {
    await dropDatabase(name);
    throw error;
  });
  return {
    ...made,
    name,
    drop: async () => {
      await made.prisma.$disconnect();
      await made.pool.end().catch(() => undefined);
      await dropDatabase(name);
    },
  };
}
