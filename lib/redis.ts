import Redis, { type Command } from "ioredis";
import { config } from "@/lib/config";
import { onShutdown } from "@/lib/plumbing/shutdown";

interface Holder {
  client: Redis | null;
  /** Whether this connection has been ready at least once (a later `ready` is a reconnection). */
  wasReady: boolean;
  reconnectListeners: Array<() => void>;
}

const holder = ((globalThis as { __pmbRedis?: Holder }).__pmbRedis ??= { client: null, wasReady: false, reconnectListeners: [] });

/** Thrown, without touching the network, while Redis is not connected. */
export class RedisUnavailableError extends Error {
  readonly code = "REDIS_UNAVAILABLE";
  constructor() {
    super("Redis is not connected");
    this.name = "RedisUnavailableError";
  }
}

/**
 * A connection that gives itself up when Redis stops answering on it. A Redis that goes quiet on
 * an open connection (a host gone without a RST, a network partition) would otherwise cost every
 * request the whole command timeout while the connection still looks ready. When a command times
 * out, nothing came back on the connection since it was sent, and the timeout fired on time (this
 * process was not starved of CPU, so an answer could not be sitting unread), the connection is
 * dropped and remade in the background: until it is ready again commands fail at once (no offline
 * queue), so requests get their 503 in milliseconds. A slow but answering Redis keeps its connection.
 */
class FailFastRedis extends Redis {
  private lastAnswerAt = 0;

  override sendCommand(command: Command, stream?: Parameters<Redis["sendCommand"]>[1]): unknown {
    const sentAt = performance.now();
    const sent = super.sendCommand(command, stream);
    command.promise.then(
      () => {
        this.lastAnswerAt = performance.now();
      },
      (error: Error) => {
        const now = performance.now();
        if (error?.message !== "Command timed out") {
          if (error?.name === "ReplyError") this.lastAnswerAt = now;
          return;
        }
        const onTime = now - sentAt < 2 * config().REDIS_COMMAND_TIMEOUT_MS;
        if (this.status === "ready" && this.lastAnswerAt < sentAt && onTime) {
          console.error("[redis] no answer within the command timeout; reconnecting");
          this.disconnect(true);
        }
      },
    );
    return sent;
  }
}

/**
 * The process's Redis connection, or null when REDIS_URL is unset (one-instance mode).
 *
 * Fails fast while Redis is down: no offline queue (a command on a connection that is not ready
 * fails at once instead of waiting for a reconnection), no retry of a command, a short connect and
 * command timeout (REDIS_COMMAND_TIMEOUT_MS) after which the connection is remade
 * (FailFastRedis); the pipeline answers such a failure with 503
 * `unavailable` and Retry-After. The client keeps reconnecting in the background (every
 * 100 ms growing to 1 s), so service returns without a restart.
 */
export function redis(): Redis | null {
  const c = config();
  const url = c.REDIS_URL;
  if (!url) return null;
  if (!holder.client) {
    const client = new FailFastRedis(url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: Math.max(250, c.REDIS_COMMAND_TIMEOUT_MS * 2),
      commandTimeout: c.REDIS_COMMAND_TIMEOUT_MS,
      retryStrategy: (times) => Math.min(100 * times, 1000),
      lazyConnect: false,
      enableAutoPipelining: true,
    });
    let lastError = "";
    client.on("error", (error) => {
      // One line per distinct failure, not one per reconnection attempt.
      if (error.message !== lastError) console.error(`[redis] ${error.message}`);
      lastError = error.message;
    });
    client.on("ready", () => {
      lastError = "";
      if (holder.wasReady) {
        console.log("[redis] reconnected");
        for (const listener of holder.reconnectListeners) listener();
      }
      holder.wasReady = true;
    });
    holder.client = client;
    onShutdown(async () => {
      await client.quit().catch(() => undefined);
      holder.client = null;
    }, 90);
  }
  return holder.client;
}

/**
 * The connection when it is ready. A connection still being made for the first time is waited
 * for (up to the connect timeout); a connection that was lost throws RedisUnavailableError at once.
 */
export async function readyRedis(): Promise<Redis> {
  const client = redis();
  if (!client) throw new Error("readyRedis: REDIS_URL is not set");
  if (client.status === "ready") return client;
  if (!holder.wasReady && (client.status === "connecting" || client.status === "connect" || client.status === "wait")) {
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), Math.max(250, config().REDIS_COMMAND_TIMEOUT_MS * 2));
      const done = (ok: boolean) => {
        clearTimeout(timer);
        client.off("ready", onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      client.on("ready", onReady);
    });
    if (ready) return client;
  }
  throw new RedisUnavailableError();
}

/** Runs `listener` each time the connection comes back after it was lost (Redis may have restarted empty). */
export function onRedisReconnect(listener: () => void): void {
  holder.reconnectListeners.push(listener);
}

/** For /healthz: not configured, or reachable with its round-trip time, or the reason it is not. */
export async function redisHealth(): Promise<{ configured: false } | { configured: true; ok: true; latencyMs: number } | { configured: true; ok: false; error: string }> {
  if (!config().REDIS_URL) return { configured: false };
  const started = performance.now();
  try {
    const client = await readyRedis();
    await client.ping();
    return { configured: true, ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    const e = error as { message?: string };
    return { configured: true, ok: false, error: error instanceof RedisUnavailableError ? "not connected" : (e.message ?? "unreachable").split("\n")[0]!.slice(0, 200) };
  }
}

export function redisKey(name: string): string {
  return `${config().REDIS_PREFIX}${name}`;
}
