/**
 * One atomic check-and-record over a ZSET log (score = admission ms, member unique per request).
 * KEYS[1] = log key. ARGV = nowMs ("" = use Redis TIME), request id, "1" record / "0" look, then
 * (windowMs, limit) pairs. Returns { nowMs, allowed, count_1, resetMs_1, count_2, resetMs_2, ... }
 * with the same counting rule as the memory store: an entry counts while now - t < windowMs.
 * All windows share one log: every admitted request counts in every window, so a per-window log
 * would be an exact copy of this one restricted to a shorter range.
 */
export const SLIDING_LOG_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local record = ARGV[3] == '1'
local n = (#ARGV - 3) / 2
local span = 0
for i = 1, n do
  local ms = tonumber(ARGV[2 + 2 * i])
  if ms > span then span = ms end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - span))
local counts = {}
local allowed = true
for i = 1, n do
  local ms = tonumber(ARGV[2 + 2 * i])
  local limit = tonumber(ARGV[3 + 2 * i])
  counts[i] = redis.call('ZCOUNT', key, string.format('(%d', now - ms), '+inf')
  if counts[i] >= limit then allowed = false end
end
if allowed and record then
  redis.call('ZADD', key, now, string.format('%d', now) .. ':' .. ARGV[2])
  redis.call('PEXPIRE', key, span)
  for i = 1, n do counts[i] = counts[i] + 1 end
end
local out = { now, allowed and 1 or 0 }
for i = 1, n do
  local ms = tonumber(ARGV[2 + 2 * i])
  local limit = tonumber(ARGV[3 + 2 * i])
  local skip = counts[i] - limit
  if skip < 0 then skip = 0 end
  local hit = redis.call('ZRANGEBYSCORE', key, string.format('(%d', now - ms), '+inf', 'WITHSCORES', 'LIMIT', skip, 1)
  local reset = now + ms
  if hit[2] then reset = tonumber(hit[2]) + ms end
  out[#out + 1] = counts[i]
  out[#out + 1] = reset
end
return out
`;
