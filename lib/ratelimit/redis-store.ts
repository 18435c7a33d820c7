import { createHash, randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { checkWindows, withKeyMethods } from "./sliding-log";
import { BATCH_LOG_LUA } from "./sliding-log-script";
import type { LogOutcome, LogRequest, LogWindow, RateLimitStore, WindowCount } from "./types";

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

/** At most this many calls go in one script run; a larger turn is sent as several runs in one write. */
const MAX_BATCH = 64;

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

/** One call waiting for its turn's script run. */
interface Pending {
  keys: string[];
  args: string[];
  /** windows of the first log, and of the second for a chain */
  first: number;
  second: number | null;
  resolve: (value: [LogOutcome, LogOutcome | null]) => void;
  reject: (error: unknown) => void;
}

/** Reads one call's reply from `nums` at `at`; returns its outcomes and where the next call's reply starts. */
function readCall(nums: number[], at: number, call: Pending): { value: [LogOutcome, LogOutcome | null]; next: number } {
  const now = nums[at] ?? Number.NaN;
  const a = readOutcome(nums, at + 1, now, call.first);
  let next = at + 2 + 2 * call.first;
  if (call.second === null) return { value: [a, null], next };
  if (!a.allowed) {
    if (nums[next] !== -1) throw badReply();
    return { value: [a, null], next: next + 1 };
  }
  const b = readOutcome(nums, next, now, call.second);
  next += 1 + 2 * call.second;
  return { value: [a, b], next };
}

/**
 * Sliding logs in Redis, shared by any number of app instances. The calls made in one event-loop
 * turn (every request of one round of I/O) are sent together as one Lua script run (EVALSHA,
 * falling back to EVAL once per server): one command and one reply for all of them, instead of
 * one each. The script decides them one after another, each check-and-record atomic as if run
 * alone, so admission is exactly that of one run per call. The caller owns the connection:
 * `close` is not provided.
 */
export function createRedisStore(redis: Redis, options: RedisStoreOptions = {}): RateLimitStore {
  const prefix = options.prefix ?? "rl:";
  const useCallerClock = options.clock === "caller";
  const clock = (nowMs: number) => (useCallerClock ? String(Math.floor(nowMs)) : "");
  const pairs = (windows: readonly LogWindow[]) => windows.flatMap((w) => [String(w.ms), String(w.limit)]);
  let queue: Pending[] = [];

  async function evaluate(keys: string[], args: string[]): Promise<unknown> {
    try {
      return await redis.evalsha(BATCH_LOG.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(BATCH_LOG.lua, keys.length, ...keys, ...args);
    }
  }

  async function send(calls: Pending[]): Promise<void> {
    try {
      const nums = numbers(await evaluate(calls.flatMap((c) => c.keys), calls.flatMap((c) => c.args)));
      const values: Array<[LogOutcome, LogOutcome | null]> = [];
      let at = 0;
      for (const call of calls) {
        const read = readCall(nums, at, call);
        values.push(read.value);
        at = read.next;
      }
      if (at !== nums.length) throw badReply();
      calls.forEach((call, i) => call.resolve(values[i]!));
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
  }

  function flush(): void {
    const calls = queue;
    queue = [];
    for (let i = 0; i < calls.length; i += MAX_BATCH) void send(calls.slice(i, i + MAX_BATCH));
  }

  function enqueue(op: "h" | "l" | "c", first: LogRequest, second: LogRequest | null, nowMs: number): Promise<[LogOutcome, LogOutcome | null]> {
    try {
      checkWindows(first.windows);
      if (second) checkWindows(second.windows);
    } catch (error) {
      return Promise.reject(error);
    }
    const args = [op, clock(nowMs), memberId(), String(first.windows.length), ...pairs(first.windows)];
    if (second) args.push(String(second.windows.length), ...pairs(second.windows));
    const keys = second ? [prefix + first.key, prefix + second.key] : [prefix + first.key];
    return new Promise((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ keys, args, first: first.windows.length, second: second ? second.windows.length : null, resolve, reject });
    });
  }

  const one = async (op: "h" | "l", key: string, windows: readonly LogWindow[], nowMs: number) => (await enqueue(op, { key, windows }, null, nowMs))[0];

  return withKeyMethods({
    hit: (key, windows, nowMs) => one("h", key, windows, nowMs),
    look: (key, windows, nowMs) => one("l", key, windows, nowMs),
    hitThen: (first, second, nowMs) => enqueue("c", first, second, nowMs),
  });
}
