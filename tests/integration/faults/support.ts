import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { generateKey } from "@/lib/keys/api-key";
import { waitFor } from "../../support/wait-for";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";

/** A directory of this test's own for DATA_DIR (journals, the embedded database, its lock). */
export function tempDataDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `pmb-${label}-`));
}

/** A Redis of this test's own: nothing persisted, so a restart comes back empty. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
  });
  return child;
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** The keys CLI, as an operator runs it. */
export function keysCli(
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/keys.ts", ...args],
    {
      env: { ...process.env, ...env },
      encoding: "utf8",
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A TCP proxy in front of a dependency (PostgreSQL, Redis) that the test switches between:
 * - open: bytes pass both ways;
 * - close: the port is closed and its connections cut (the dependency refuses connections);
 * - silence: the held connections stay open but go quiet, and new ones are accepted and never
 *   answered (a host gone without a RST, a network partition: detectable only by a timeout);
 * - heal: new connections pass again, while those held through the silence stay open and quiet
 *   (state a middlebox lost in the partition: the client must discard them by itself).
 */
export interface Proxy {
  port: number;
  close(): Promise<void>;
  open(): Promise<void>;
  silence(): Promise<void>;
  heal(): Promise<void>;
}

export async function startProxy(targetPort: number, port: number): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let server: net.Server | null = null;
  let silent = false;
  const cut = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    pairs.clear();
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        sockets.add(client);
        client.on("error", () => client.destroy()).on("close", () => sockets.delete(client));
        if (silent) return; // accepted, never answered
        const upstream = net.connect(targetPort, "127.0.0.1");
        sockets.add(upstream);
        const pair: [net.Socket, net.Socket] = [client, upstream];
        pairs.add(pair);
        const drop = () => {
          pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        };
        client.on("close", drop);
        upstream.on("error", drop).on("close", () => {
          sockets.delete(upstream);
          drop();
        });
        client.pipe(upstream).pipe(client);
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  const unlisten = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await listen();
  return {
    port,
    async open() {
      cut();
      silent = false;
      if (!server) await listen();
    },
    async close() {
      cut();
      silent = false;
      await unlisten();
    },
    async silence() {
      silent = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.resume(); // what is sent on them is read and dropped
        upstream.resume();
      }
      pairs.clear();
      if (!server) await listen();
    },
    async heal() {
      silent = false;
      if (!server) await listen();
    },
  };
}

/** Milliseconds a fetch takes to answer, with its response. */
export async function timed(url: string, init?: RequestInit): Promise<{ res: Response; ms: number; text: string }> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  return { res, ms: performance.now() - started, text };
}

/**
 * A database of this test's own, migrated as `npm start` migrates: instances registered in it
 * (lib/keys/instances.ts) are this test's only, so a revocation check sees no server of another test.
 */
export async function ownDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = uniqueName(`pmb_f_${label}`);
  const url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migration failed:\n${migrate.stdout}\n${migrate.stderr}`);
  return { url, drop: () => dropDatabase(name) };
}

/** One query on `url`, outside the app's own client. */
export async function sql<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A key minted by the operator CLI in `env`'s database. */
export function mintKey(env: Record<string, string>, limits: { minute?: number; day?: number } = {}): string {
  const r = keysCli(
    [
      "mint",
      "--email",
      `f-${Math.random().toString(36).slice(2)}@example.com`,
      "--limit-minute",
      String(limits.minute ?? 10_000),
      "--limit-day",
      String(limits.day ?? 100_000),
    ],
    env,
  );
  if (r.status !== 0) throw new Error(`keys mint failed: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * `n` active keys of one new account, written straight into `url`'s database (as `keys mint`
 * would, without a process per key): keys no server has resolved yet, so a request with one needs
 * the database.
 */
export async function insertKeys(url: string, n: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const userId = `u-${Math.random().toString(36).slice(2)}`;
    await client.query(`INSERT INTO users (id, email, "updatedAt") VALUES ($1, $2, now())`, [
      userId,
      `${userId}@example.com`,
    ]);
    const minted = Array.from({ length: n }, () => generateKey());
    // One statement per 5,000 keys (a bench asks for tens of thousands).
    for (let i = 0; i < minted.length; i += 5000) {
      const batch = minted.slice(i, i + 5000);
      await client.query(
        `INSERT INTO api_keys (id, "userId", hash, prefix, "lastFour", "limitMinute", "limitDay")
         SELECT gen_random_uuid(), $1, hash, prefix, last_four, 100000, 1000000 FROM unnest($2::text[], $3::text[], $4::text[]) AS k(hash, prefix, last_four)`,
        [userId, batch.map((k) => k.hash), batch.map((k) => k.prefix), batch.map((k) => k.lastFour)],
      );
    }
    return minted.map((k) => k.key);
  } finally {
    await client.end();
  }
}

/** Polls `check` every 25 ms until it is true; the milliseconds it took (NaN after `timeoutMs`). */
export async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  const started = performance.now();
  return waitFor("the condition", check, { timeoutMs, intervalMs: 25 }).then(
    () => performance.now() - started,
    () => NaN,
  );
}
