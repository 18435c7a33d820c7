import { createHash, randomUUID } from "node:crypto";
import type Redis from "ioredis";
import { checkWindows, withKeyMethods } from "./sliding-log";
import { SLIDING_LOG_LUA } from "./sliding-log-script";
import type { LogOutcome, LogWindow, RateLimitStore, WindowCount } from "./types";

export interface RedisStoreOptions {
  /** Prepended to every Redis key this store touches. */
  prefix?: string;
  /**
   * Whose clock decides. "redis" (default): the script reads Redis TIME, so every app instance
   * shares one clock and the log stays ordered however far the instances' clocks drift; the
   * caller's `nowMs` is ignored. "caller": the passed `nowMs` is used (tests with injected time,
   * single-instance use); instances skewed by d ms then admit early or late by up to d ms and the
   * headers they send are off by the same amount.
   */
  clock?: "redis" | "caller";
}

const SCRIPT_SHA = createHash("sha1").update(SLIDING_LOG_LUA).digest("hex");

function parseReply(reply: unknown, windows: number): LogOutcome {
  const bad = new Error("sliding log: unexpected reply from Redis script");
  if (!Array.isArray(reply) || reply.length !== 2 + 2 * windows) throw bad;
  const nums = reply.map((v: unknown) => (typeof v === "number" ? v : Number.NaN));
  if (nums.some((v) => !Number.isFinite(v))) throw bad;
  const out: WindowCount[] = [];
  for (let i = 0; i < windows; i++) {
    out.push({ count: nums[2 + 2 * i] ?? 0, resetMs: nums[3 + 2 * i] ?? 0 });
  }
  return { nowMs: nums[0] ?? 0, allowed: nums[1] === 1, windows: out };
}

/**
 * Sliding logs in Redis, shared by any number of app instances. Each decision is one Lua script
 * run (EVALSHA, falling back to EVAL once per server), so check-and-record is atomic across
 * connections. The caller owns the connection: `close` is not provided.
 */
export function createRedisStore(redis: Redis, options: RedisStoreOptions = {}): RateLimitStore {
  const prefix = options.prefix ?? "rl:";
  const useCallerClock = options.clock === "caller";

  async function run(key: string, windows: readonly LogWindow[], nowMs: number, record: boolean) {
    checkWindows(windows);
    const args = [
      useCallerClock ? String(Math.floor(nowMs)) : "",
      randomUUID(),
      record ? "1" : "0",
      ...windows.flatMap((w) => [String(w.ms), String(w.limit)]),
    ];
    let reply: unknown;
    try {
      reply = await redis.evalsha(SCRIPT_SHA, 1, prefix + key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      reply = await redis.eval(SLIDING_LOG_LUA, 1, prefix + key, ...args);
    }
    return parseReply(reply, windows.length);
  }

  return withKeyMethods({
    hit: (key, windows, nowMs) => run(key, windows, nowMs, true),
    look: (key, windows, nowMs) => run(key, windows, nowMs, false),
  });
}
