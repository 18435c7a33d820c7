/**
 * Atomic check-and-record over ZSET logs (score = admission ms, member unique per request), with
 * the same counting rule as the memory store: an entry counts while now - t < windowMs. All
 * windows of one log share it: every admitted request counts in every window, so a per-window
 * log would be an exact copy of this one restricted to a shorter range.
 *
 * `hitlog(key, now, member, record, windows)` returns { allowed, count_1, resetMs_1, ... }.
 */
const PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local function windowsFrom(first, last)
  local w = {}
  for i = first, last, 2 do w[#w + 1] = { tonumber(ARGV[i]), tonumber(ARGV[i + 1]) } end
  return w
end
local function hitlog(key, member, record, windows)
  local span = 0
  for i = 1, #windows do
    if windows[i][1] > span then span = windows[i][1] end
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - span))
  -- What is left is the longest window: its count is the log's size, its entries by rank.
  local counts = {}
  local allowed = true
  for i = 1, #windows do
    if windows[i][1] == span then
      counts[i] = redis.call('ZCARD', key)
    else
      counts[i] = redis.call('ZCOUNT', key, string.format('(%d', now - windows[i][1]), '+inf')
    end
    if counts[i] >= windows[i][2] then allowed = false end
  end
  if allowed and record then
    redis.call('ZADD', key, now, string.format('%d', now) .. ':' .. member)
    redis.call('PEXPIRE', key, span)
    for i = 1, #windows do counts[i] = counts[i] + 1 end
  end
  local out = { allowed and 1 or 0 }
  for i = 1, #windows do
    local ms = windows[i][1]
    local skip = counts[i] - windows[i][2]
    if skip < 0 then skip = 0 end
    local hit
    if ms == span then
      hit = redis.call('ZRANGE', key, skip, skip, 'WITHSCORES')
    else
      hit = redis.call('ZRANGEBYSCORE', key, string.format('(%d', now - ms), '+inf', 'WITHSCORES', 'LIMIT', skip, 1)
    end
    local reset = now + ms
    if hit[2] then reset = tonumber(hit[2]) + ms end
    out[#out + 1] = counts[i]
    out[#out + 1] = reset
  end
  return out
end
`;

/**
 * One log. KEYS[1] = log key. ARGV = nowMs ("" = use Redis TIME), a unique member id, "1" record /
 * "0" look, then (windowMs, limit) pairs. Returns { nowMs, allowed, count_1, resetMs_1, ... }.
 */
export const SLIDING_LOG_LUA = `${PRELUDE}
local out = hitlog(KEYS[1], ARGV[2], ARGV[3] == '1', windowsFrom(4, #ARGV))
table.insert(out, 1, now)
return out
`;

/**
 * Two logs in a chain: the first is hit; only when it admitted is the second hit, at the same
 * instant (the address throttle, then the key's windows). KEYS = first, second. ARGV = nowMs ("" = Redis TIME),
 * a unique member id, n = the number of the first log's windows, then its n (windowMs, limit) pairs,
 * then the second's pairs. Returns { nowMs, first's reply..., then the second's reply, or -1
 * when the first refused }.
 */
export const CHAINED_LOG_LUA = `${PRELUDE}
local n = tonumber(ARGV[3])
local out = hitlog(KEYS[1], ARGV[2], true, windowsFrom(4, 3 + 2 * n))
table.insert(out, 1, now)
if out[2] == 1 then
  for _, v in ipairs(hitlog(KEYS[2], ARGV[2], true, windowsFrom(4 + 2 * n, #ARGV))) do out[#out + 1] = v end
else
  out[#out + 1] = -1
end
return out
`;
