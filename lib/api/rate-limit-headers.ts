/**
 * The rate-limit headers every keyed answer carries, named once: the shell writes them, CORS
 * exposes them to browsers, the OpenAPI document lists them. Each member is the LimitDecision
 * field the header reports, in the order the headers are written.
 */
export const RATE_LIMIT_HEADERS = {
  limitMinute: "X-RateLimit-Limit",
  remainingMinute: "X-RateLimit-Remaining",
  limitDay: "X-RateLimit-Limit-Day",
  remainingDay: "X-RateLimit-Remaining-Day",
  resetMinute: "X-RateLimit-Reset",
  resetDay: "X-RateLimit-Reset-Day",
} as const;

/** The IETF draft's structured headers, written beside the six above. */
export const RATE_LIMIT_POLICY_HEADER = "RateLimit-Policy";
export const RATE_LIMIT_HEADER = "RateLimit";
