import { createHash, randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { checkWindows, withKeyMethods } from "./sliding-log";
import { BATCH_LOG_LUA } from "./sliding-log-script";
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

interface Script {
  lua: string;
  sha: string;
}

const script = (lua: string): Script => ({ lua, sha: createHash("sha1").update(lua).digest("hex") });
const BATCH_LOG = script(BATCH_LOG_LUA);

const badReply = () => new Error("sliding log: unexpected reply from Redis script");

/**
 * A log entry's member suffix, unique across every instance and request: this process's random
 * tag and a counter (the script prefixes the admission ms). Short, because a day log holds one
 * member per admitted request.
 */
const PROCESS_TAG = randomBytes(9).toString("base64url");
let sequence = 0;
const memberId = () => PROCESS_TAG + (sequence++).toString(36);

/** Reads one log's { allowed, count, resetMs, ... } from `nums` at `at`. */
function readOutcome(nums: number[], at: number, nowMs: number, windows: number): LogOutcome {
  if (nums.length < at + 1 + 2 * windows) throw badReply();
  const out: WindowCount[] = [];
  for (let i = 0; i < windows; i++) {
    out.push({ count: nums[at + 1 + 2 * i] ?? 0, resetMs: nums[at + 2 + 2 * i] ?? 0 });
  }
  return { nowMs, allowed: nums[at] === 1, windows: out };
}

function numbers(reply: unknown): number[] {
  if (!Array.isArray(reply)) throw badReply();
  const nums = reply.map((v: unknown) => (typeof v === "number" ? v : Number.NaN));
  if (nums.some((v) => !Number.isFinite(v))) throw badReply();
  return nums;
}

/**
 * Sliding logs in Redis, shared by any number of app instances: one Lua script run per call
 * (EVALSHA, falling back to EVAL once per server), each check-and-record atomic. ioredis
 * pipelines the commands issued in one tick on its connection. The caller owns the connection:
 * `close` is not provided.
 */
export function createRedisStore(redis: Redis, options: RedisStoreOptions = {}): RateLimitStore {
  const prefix = options.prefix ?? "rl:";
  const useCallerClock = options.clock === "caller";
  const clock = (nowMs: number) => (useCallerClock ? String(Math.floor(nowMs)) : "");

  async function evaluate(keys: string[], args: string[]): Promise<unknown> {
    try {
      return await redis.evalsha(BATCH_LOG.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(BATCH_LOG.lua, keys.length, ...keys, ...args);
    }
  }

  /** One log's check ("h": and record) in one script run; the reply is the instant, then the outcome. */
  async function run(op: "h" | "l", key: string, windows: readonly LogWindow[], nowMs: number): Promise<LogOutcome> {
    checkWindows(windows);
    const args = [
      op,
      clock(nowMs),
      memberId(),
      String(windows.length),
      ...windows.flatMap((w) => [String(w.ms), String(w.limit)]),
    ];
    const nums = numbers(await evaluate([prefix + key], args));
    if (nums.length !== 2 + 2 * windows.length) throw badReply();
    return readOutcome(nums, 1, nums[0]!, windows.length);
  }

  return withKeyMethods({
    hit: (key, windows, nowMs) => run("h", key, windows, nowMs),
    look: (key, windows, nowMs) => run("l", key, windows, nowMs),
  });
}
