import Redis, { type Command } from "ioredis";
import type { Config } from "@/lib/config";
import { hasErrorKind } from "@/lib/plumbing/error-kind";
import type { Shutdown } from "@/lib/plumbing/shutdown";

/** Thrown, without touching the network, while Redis is not connected. */
export class RedisUnavailableError extends Error {
  readonly kind = "RedisUnavailableError" as const;
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

  constructor(
    url: string,
    private readonly commandTimeoutMs: number,
    private readonly observer?: RedisObserver,
  ) {
    super(url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: Math.max(250, commandTimeoutMs * 2),
      commandTimeout: commandTimeoutMs,
      retryStrategy: (times) => Math.min(100 * times, 1000),
      lazyConnect: false,
      enableAutoPipelining: true,
    });
  }

  override sendCommand(command: Command, stream?: Parameters<Redis["sendCommand"]>[1]): unknown {
    const sentAt = performance.now();
    const sent = super.sendCommand(command, stream);
    command.promise.then(
      () => {
        this.lastAnswerAt = performance.now();
        this.observer?.timed((this.lastAnswerAt - sentAt) / 1000, true);
      },
      (error: Error) => {
        const now = performance.now();
        this.observer?.timed((now - sentAt) / 1000, false);
        this.observer?.failed(
          error?.message === "Command timed out" ? "timeout" : error?.name === "ReplyError" ? "reply" : "unavailable",
        );
        if (error?.message !== "Command timed out") {
          if (error?.name === "ReplyError") this.lastAnswerAt = now;
          return;
        }
        const onTime = now - sentAt < 2 * this.commandTimeoutMs;
        if (this.status === "ready" && this.lastAnswerAt < sentAt && onTime) {
          console.error("[redis] no answer within the command timeout; reconnecting");
          this.disconnect(true);
        }
      },
    );
    return sent;
  }
}

/** What Redis reports to the metrics (lib/plumbing/metrics.ts): command round trips, failures, outages begun. */
export interface RedisObserver {
  timed(seconds: number, ok: boolean): void;
  failed(kind: "timeout" | "reply" | "unavailable"): void;
  outage(): void;
}

/** Redis of one root (lib/root.ts): the connection, made on first use, or none without REDIS_URL. */
export interface RedisConnection {
  /**
   * The connection, or null when REDIS_URL is unset (one-instance mode).
   *
   * Fails fast while Redis is down: no offline queue (a command on a connection that is not ready
   * fails at once instead of waiting for a reconnection), no retry of a command, a short connect and
   * command timeout (REDIS_COMMAND_TIMEOUT_MS) after which the connection is remade
   * (FailFastRedis); the pipeline answers such a failure with 503
   * `unavailable` and Retry-After. The client keeps reconnecting in the background (every
   * 100 ms growing to 1 s), so service returns without a restart.
   */
  client(): Redis | null;
  /**
   * The connection when it is ready. A connection still being made for the first time is waited
   * for (up to the connect timeout); a connection that was lost throws RedisUnavailableError at once.
   */
  ready(): Promise<Redis>;
  /** Runs `listener` each time the connection comes back after it was lost (Redis may have restarted empty). */
  onReconnect(listener: () => void): void;
  /** For /healthz: not configured, or reachable with its round-trip time, or the reason it is not. */
  health(): Promise<
    | { configured: false }
    | { configured: true; ok: true; latencyMs: number }
    | { configured: true; ok: false; error: string }
  >;
  /** A key under REDIS_PREFIX. */
  key(name: string): string;
}

export function createRedis(
  config: Pick<Config, "REDIS_URL" | "REDIS_PREFIX" | "REDIS_COMMAND_TIMEOUT_MS">,
  shutdown: Shutdown,
  observer?: RedisObserver,
): RedisConnection {
  let current: Redis | null = null;
  /** Whether this connection has been ready at least once (a later `ready` is a reconnection). */
  let wasReady = false;
  const reconnectListeners: Array<() => void> = [];
  const connectTimeout = Math.max(250, config.REDIS_COMMAND_TIMEOUT_MS * 2);

  const connection: RedisConnection = {
    client() {
      const url = config.REDIS_URL;
      if (!url) return null;
      if (!current) {
        const client = new FailFastRedis(url, config.REDIS_COMMAND_TIMEOUT_MS, observer);
        let lastError = "";
        client.on("error", (error) => {
          // One line per distinct failure, not one per reconnection attempt.
          if (error.message !== lastError) {
            if (lastError === "") observer?.outage();
            console.error(`[redis] ${error.message}`);
          }
          lastError = error.message;
        });
        client.on("ready", () => {
          lastError = "";
          if (wasReady) {
            console.log("[redis] reconnected");
            for (const listener of reconnectListeners) listener();
          }
          wasReady = true;
        });
        current = client;
        shutdown.on(async () => {
          await client.quit().catch(() => undefined);
          current = null;
        }, 90);
      }
      return current;
    },
    async ready() {
      const client = connection.client();
      if (!client) throw new Error("readyRedis: REDIS_URL is not set");
      if (client.status === "ready") return client;
      if (!wasReady && (client.status === "connecting" || client.status === "connect" || client.status === "wait")) {
        const ready = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => done(false), connectTimeout);
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
    },
    onReconnect(listener) {
      reconnectListeners.push(listener);
    },
    async health() {
      if (!config.REDIS_URL) return { configured: false };
      const started = performance.now();
      try {
        const client = await connection.ready();
        await client.ping();
        return { configured: true, ok: true, latencyMs: Math.round(performance.now() - started) };
      } catch (error) {
        const e = error as { message?: string };
        return {
          configured: true,
          ok: false,
          error: hasErrorKind(error, "RedisUnavailableError")
            ? "not connected"
            : (e.message ?? "unreachable").split("\n")[0]!.slice(0, 200),
        };
      }
    },
    key: (name) => `${config.REDIS_PREFIX}${name}`,
  };
  return connection;
}
