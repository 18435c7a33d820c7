import { createHash, randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { checkWindows, withKeyMethods } from "./sliding-log";
import type { LogOutcome, LogWindow, RateLimitStore, WindowCount } from "./types";

/**
 * Atomic check-and-record over ZSET logs (score = admission ms, member unique per request), with
 * the same counting rule as the memory store: an entry counts while now - t < windowMs. All
 * windows of one log share it: every admitted request counts in every window, so a per-window
 * log would be an exact copy of this one restricted to a shorter range.
 *
 * `hitlog(out, key, now, member, record, windows)` appends { allowed, count_1, resetMs_1, ... } to out.
 */
const PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end
local serverNow
local function clock(arg)
  if arg ~= '' then return tonumber(arg) end
  if not serverNow then
    local t = redis.call('TIME')
    serverNow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return serverNow
end
local function windowsFrom(first, count)
  local w = {}
  for i = first, first + 2 * count - 1, 2 do w[#w + 1] = { tonumber(ARGV[i]), tonumber(ARGV[i + 1]) } end
  return w
end
-- What this run knows of each log it touched: the bound it was trimmed at, and at the instant
-- \`now\` each window's count and oldest counted entry. A later call of the same run at the same
-- instant reads them instead of asking again: its own entries (score now) are the only change,
-- and they add one to every count and never come before the oldest. A trim, another instant or
-- an entry older than the trim bound starts afresh.
local logs = {}
-- Logs to expire after the run, with the longest window of the last call that recorded in each
-- (a script's clock stands still, so one PEXPIRE at the end sets what one per entry would).
local expiring, expiringOrder = {}, {}
local function hitlog(out, key, now, member, record, windows)
  local span = 0
  for i = 1, #windows do
    if windows[i][1] > span then span = windows[i][1] end
  end
  local bound = now - span
  local log = logs[key]
  if not log or not log.bound or log.bound < bound then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', bound))
    log = { bound = bound, now = now, counts = {}, oldest = {} }
    logs[key] = log
  elseif log.now ~= now then
    log.now, log.counts, log.oldest = now, {}, {}
  end
  -- What is left is the longest window: its count is the log's size, its entries by rank.
  local counts = {}
  local allowed = true
  for i = 1, #windows do
    local ms = windows[i][1]
    local c = log.counts[ms]
    if c == nil then
      if ms == span then
        c = redis.call('ZCARD', key)
      else
        c = redis.call('ZCOUNT', key, string.format('(%d', now - ms), '+inf')
      end
      log.counts[ms] = c
    end
    counts[i] = c
    if c >= windows[i][2] then allowed = false end
  end
  if allowed and record then
    redis.call('ZADD', key, now, string.format('%d', now) .. ':' .. member)
    if not expiring[key] then expiringOrder[#expiringOrder + 1] = key end
    expiring[key] = span
    for ms, c in pairs(log.counts) do log.counts[ms] = c + 1 end
    for i = 1, #windows do counts[i] = counts[i] + 1 end
    if now <= log.bound then log.bound = nil end
  end
  out[#out + 1] = allowed and 1 or 0
  for i = 1, #windows do
    local ms = windows[i][1]
    local skip = counts[i] - windows[i][2]
    if skip < 0 then skip = 0 end
    local oldest = skip == 0 and log.oldest[ms] or nil
    if not oldest then
      local hit
      if ms == span then
        hit = redis.call('ZRANGE', key, skip, skip, 'WITHSCORES')
      else
        hit = redis.call('ZRANGEBYSCORE', key, string.format('(%d', now - ms), '+inf', 'WITHSCORES', 'LIMIT', skip, 1)
      end
      if hit[2] then
        oldest = tonumber(hit[2])
        if skip == 0 then log.oldest[ms] = oldest end
      end
    end
    out[#out + 1] = counts[i]
    out[#out + 1] = oldest and oldest + ms or now + ms
  end
  return allowed
end
`;

/**
 * The calls of one event-loop turn, in one script run: each is decided in order, as if each had
 * run alone, so admission is exactly that of one call per run. Redis TIME is read once per run.
 *
 * ARGV holds the calls one after another: op ("h" hit, "l" look, "c" chain), nowMs ("" = Redis
 * TIME), a unique member id, n, then n (windowMs, limit) pairs; a chain then has m and the second
 * log's m pairs. KEYS hold each call's log (a chain: two), in the same order.
 *
 * Returns, per call: nowMs, then { allowed, count_1, resetMs_1, ... }; a chain then the second
 * log's reply, or -1 when the first refused (its second log untouched).
 */
export const BATCH_LOG_LUA = `${PRELUDE}
local out = {}
local a, k = 1, 1
while a <= #ARGV do
  local op, now, member, n = ARGV[a], clock(ARGV[a + 1]), ARGV[a + 2], tonumber(ARGV[a + 3])
  local first = windowsFrom(a + 4, n)
  a = a + 4 + 2 * n
  out[#out + 1] = now
  local allowed = hitlog(out, KEYS[k], now, member, op ~= 'l', first)
  k = k + 1
  if op == 'c' then
    local m = tonumber(ARGV[a])
    local second = windowsFrom(a + 1, m)
    a = a + 1 + 2 * m
    if allowed then hitlog(out, KEYS[k], now, member, true, second) else out[#out + 1] = -1 end
    k = k + 1
  end
end
for _, key in ipairs(expiringOrder) do redis.call('PEXPIRE', key, expiring[key]) end
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
