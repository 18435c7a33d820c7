export type {
  KeyLimits,
  LimitDecision,
  LogOutcome,
  LogRequest,
  LogWindow,
  RateLimitStore,
  ThrottleDecision,
  WindowCount,
} from "./types";
export {
  DAY_MS,
  MINUTE_MS,
  keyWindows,
  resetSeconds,
  secondsUntil,
  throttle,
  toDecision,
  type ThrottleOptions,
} from "./sliding-log";
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from "./memory-store";
export { createRedisStore, type RedisStoreOptions } from "./redis-store";
