import { createHash, randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { checkWindows, withKeyMethods } from "./sliding-log";
import type { LogOutcome, LogWindow, RateLimitStore, WindowCount } from "./types";

/**
 * Atomic check-and-record over one ZSET log (score = admission ms, member unique per request),
 * with the same counting rule as the memory store: an entry counts while now - t < windowMs. All
 * windows of a log share it: every admitted request counts in every window, so a per-window log
 * would be an exact copy of this one restricted to a shorter range.
 *
 * KEYS[1]: the log. ARGV: op ("h" check and record, "l" look), nowMs ("" = Redis TIME), a unique
 * member id, n, then n (windowMs, limit) pairs. Returns nowMs, allowed (1 or 0), then each
 * window's count and resetMs (when its oldest counted entry ages out, or now + windowMs).
 */
const SLIDING_LOG_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local key, op, member, n = KEYS[1], ARGV[1], ARGV[3], tonumber(ARGV[4])
local now
if ARGV[2] ~= '' then
  now = tonumber(ARGV[2])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local windows, span = {}, 0
for i = 1, n do
  windows[i] = { ms = tonumber(ARGV[3 + 2 * i]), limit = tonumber(ARGV[4 + 2 * i]) }
  if windows[i].ms > span then span = windows[i].ms end
end
-- What is left after the trim is the longest window: its count is the log's size, its entries by rank.
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - span))
local counts, allowed = {}, true
for i, w in ipairs(windows) do
  if w.ms == span then
    counts[i] = redis.call('ZCARD', key)
  else
    counts[i] = redis.call('ZCOUNT', key, string.format('(%d', now - w.ms), '+inf')
  end
  if counts[i] >= w.limit then allowed = false end
end
if allowed and op == 'h' then
  redis.call('ZADD', key, now, string.format('%d', now) .. ':' .. member)
  redis.call('PEXPIRE', key, span)
  for i = 1, n do counts[i] = counts[i] + 1 end
end
local out = { now, allowed and 1 or 0 }
for i, w in ipairs(windows) do
  local skip = math.max(0, counts[i] - w.limit)
  local hit
  if w.ms == span then
    hit = redis.call('ZRANGE', key, skip, skip, 'WITHSCORES')
  else
    hit = redis.call('ZRANGEBYSCORE', key, string.format('(%d', now - w.ms), '+inf', 'WITHSCORES', 'LIMIT', skip, 1)
  end
  out[#out + 1] = counts[i]
  out[#out + 1] = hit[2] and tonumber(hit[2]) + w.ms or now + w.ms
end
return out
`;

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
const SLIDING_LOG = script(SLIDING_LOG_LUA);

const badReply = () => new Error("sliding log: unexpected reply from Redis script");

/**
 * A log entry's member suffix, unique across every instance and request: this process's random
 * tag and a counter (the script prefixes the admission ms). Short, because a day log holds one
 * member per admitted request.
 */
const PROCESS_TAG = randomBytes(9).toString("base64url");
let sequence = 0;
const memberId = () => PROCESS_TAG + (sequence++).toString(36);

/** The script's reply: nowMs, allowed, then { count, resetMs } per window. */
function readOutcome(nums: number[], windows: number): LogOutcome {
  if (nums.length !== 2 + 2 * windows) throw badReply();
  const out: WindowCount[] = [];
  for (let i = 0; i < windows; i++) out.push({ count: nums[2 + 2 * i]!, resetMs: nums[3 + 2 * i]! });
  return { nowMs: nums[0]!, allowed: nums[1] === 1, windows: out };
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
      return await redis.evalsha(SLIDING_LOG.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(SLIDING_LOG.lua, keys.length, ...keys, ...args);
    }
  }

  /** One log's check ("h": and record) in one script run. */
  async function run(op: "h" | "l", key: string, windows: readonly LogWindow[], nowMs: number): Promise<LogOutcome> {
    checkWindows(windows);
    const args = [
      op,
      clock(nowMs),
      memberId(),
      String(windows.length),
      ...windows.flatMap((w) => [String(w.ms), String(w.limit)]),
    ];
    return readOutcome(numbers(await evaluate([prefix + key], args)), windows.length);
  }

  return withKeyMethods({
    hit: (key, windows, nowMs) => run("h", key, windows, nowMs),
    look: (key, windows, nowMs) => run("l", key, windows, nowMs),
  });
}
