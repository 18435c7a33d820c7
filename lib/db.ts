import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { config } from "@/lib/config";
import { openEmbedded } from "@/lib/db/embedded";
import { applyMigrations } from "@/lib/db/migrate";
import { NameAsTextPool } from "@/lib/db/pg-pool";

export type Db = PrismaClient;

interface Holder {
  prisma: Promise<PrismaClient> | null;
  close: (() => Promise<void>) | null;
}

// One client per process, kept on globalThis so module re-evaluation in dev reuses it.
const holder: Holder = ((globalThis as { __pmbDb?: Holder }).__pmbDb ??= { prisma: null, close: null });

async function connect(): Promise<PrismaClient> {
  const c = config();
  if (c.DATABASE_URL) {
    const pool = new NameAsTextPool({ connectionString: c.DATABASE_URL, max: 10, connectionTimeoutMillis: 5000 });
    pool.on("error", () => {
      // an idle client lost its server; the next query reconnects or reports `unavailable`
    });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    holder.close = async () => {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    };
    return prisma;
  }
  // Embedded: this process owns the PGlite directory and migrates it before first use.
  const { pglite, release } = await openEmbedded();
  await applyMigrations(pglite);
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  holder.close = async () => {
    await prisma.$disconnect();
    await release();
  };
  return prisma;
}

/** The process's Prisma client (PGlite under DATA_DIR when DATABASE_URL is unset). */
export function db(): Promise<PrismaClient> {
  if (!holder.prisma) {
    holder.prisma = connect().catch((error) => {
      holder.prisma = null;
      throw error;
    });
  }
  return holder.prisma;
}

export async function closeDb(): Promise<void> {
  const close = holder.close;
  holder.prisma = null;
  holder.close = null;
  if (close) await close();
}

/** Reachability and server version, for /healthz. Never throws. */
export async function dbHealth(): Promise<{ ok: true; version: string; latencyMs: number } | { ok: false; error: string }> {
  const started = performance.now();
  try {
    const prisma = await db();
    const rows = await prisma.$queryRawUnsafe<Array<{ version: string }>>("SELECT current_setting('server_version') AS version");
    return { ok: true, version: rows[0]?.version ?? "unknown", latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: describeDbError(error) };
  }
}

/** One line about a database failure, naming the host, never a stack. */
export function describeDbError(error: unknown): string {
  const c = config();
  const where = c.DATABASE_URL ? safeHost(c.DATABASE_URL) : `embedded database in ${c.DATA_DIR}`;
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code ?? e?.code;
  const reason = code ?? (e?.message ?? String(error)).split("\n")[0]?.slice(0, 200);
  return `cannot reach ${where}: ${reason}`;
}

export function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}:${u.port || "5432"}`;
  } catch {
    return "PostgreSQL (unparseable DATABASE_URL)";
  }
}

const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE", "57P01", "57P02", "57P03", "53300", "P1001", "P1002", "P1017", "P2024", "REDIS_UNAVAILABLE", "3D000", "28P01", "28000", "08001", "08006", "08003", "08004"]);

/** True when an error means the database (or Redis, or the API process) cannot be reached, not a bug. */
export function isUnavailableError(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === "string" && UNAVAILABLE_CODES.has(e.code)) return true;
    const message = typeof e.message === "string" ? e.message : "";
    if (/ECONNREFUSED|ECONNRESET|Connection terminated|connect ETIMEDOUT|timeout exceeded when trying to connect|Can't reach database|Connection is closed|DatabaseNotReachable|the database system is (starting|shutting) up|MaxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Command timed out|Reached the max retries per request|database "[^"]*" does not exist|terminating connection due to administrator command/i.test(message)) return true;
    if (typeof e.kind === "string" && /DatabaseNotReachable|SocketTimeout|ConnectionClosed/.test(e.kind)) return true;
    e = e.cause as typeof e;
  }
  return false;
}
