import "server-only";
import { createHash } from "node:crypto";
import { EMAIL_PROVIDER_ID, signIn } from "@/lib/auth/auth";
import { checkWorkEmail, normalizeEmail } from "@/lib/auth/email-address";
import { authReadiness, authSecret } from "@/lib/auth/secret";
import { config } from "@/lib/config";
import { isUnavailableError, type Db } from "@/lib/db";
import { throttle } from "@/lib/ratelimit";
import type { Root } from "@/lib/root";

const HOUR_MS = 60 * 60 * 1000;

export type LinkRequestError =
  | "invalid_email"
  | "free_mail"
  | "rate_limited"
  | "mail_unavailable"
  | "send_failed"
  | "not_configured"
  | "unavailable";

/** What the portal says while a service sign-in depends on (Redis, the database) is down. */
export const SIGN_IN_UNAVAILABLE =
  "Sign-in is temporarily unavailable: a service it depends on is not responding. Please try again in a minute.";

export type LinkRequestResult =
  | { ok: true; email: string }
  | { ok: false; code: LinkRequestError; status: number; message: string; retryAfter?: number };

function minutes(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return m === 1 ? "a minute" : `${m} minutes`;
}

/**
 * Validates the address, counts the request against the per-client and per-address windows,
 * then has Auth.js store the hashed token and mail the link. The answer does not say whether
 * the address has an account (registering and signing in are the same step).
 */
export async function requestMagicLink(
  services: Pick<Root, "mailer" | "limiter">,
  rawEmail: unknown,
  client: string,
): Promise<LinkRequestResult> {
  try {
    return await requestLink(services, rawEmail, client);
  } catch (error) {
    if (!isUnavailableError(error)) throw error;
    return { ok: false, code: "unavailable", status: 503, retryAfter: 30, message: SIGN_IN_UNAVAILABLE };
  }
}

async function requestLink(
  { mailer, limiter }: Pick<Root, "mailer" | "limiter">,
  rawEmail: unknown,
  client: string,
): Promise<LinkRequestResult> {
  const c = config();
  const ready = authReadiness();
  if (!ready.ok)
    return { ok: false, code: "not_configured", status: 503, message: `Sign-in is not available: ${ready.message}` };
  const check = checkWorkEmail(rawEmail, c.freeMailDomains);
  if (!check.ok)
    return { ok: false, code: check.reason, status: check.reason === "free_mail" ? 422 : 400, message: check.message };
  if (!mailer.available()) {
    return {
      ok: false,
      code: "mail_unavailable",
      status: 503,
      message: "Sign-in e-mail is not configured on this server (EMAIL_SERVER is not set).",
    };
  }
  const store = limiter.store();
  const now = Date.now();
  const byClient = await throttle(store, `mail-client:${client}`, now, {
    limit: c.MAIL_LIMIT_CLIENT,
    windowMs: HOUR_MS,
  });
  if (!byClient.allowed) {
    const retryAfter = byClient.retryAfter ?? 60;
    return {
      ok: false,
      code: "rate_limited",
      status: 429,
      retryAfter,
      message: `Too many sign-in links were requested from your network. Try again in ${minutes(retryAfter)}.`,
    };
  }
  const byAddress = await throttle(store, `mail-to:${check.email}`, now, {
    limit: c.MAIL_LIMIT_ADDRESS,
    windowMs: HOUR_MS,
  });
  if (!byAddress.allowed) {
    const retryAfter = byAddress.retryAfter ?? 60;
    return {
      ok: false,
      code: "rate_limited",
      status: 429,
      retryAfter,
      message: `Too many sign-in links were sent to ${check.email}. Use the newest one you received, or try again in ${minutes(retryAfter)}.`,
    };
  }
  let outcome: string;
  try {
    outcome = await signIn(EMAIL_PROVIDER_ID, { email: check.email, redirect: false, redirectTo: "/portal" });
  } catch (error) {
    if (isUnavailableError(error)) throw error;
    console.error(`[portal] sign-in link for ${check.domain} refused: ${(error as Error).message.split("\n")[0]}`);
    outcome = "/?error=AccessDenied";
  }
  if (new URL(outcome, c.baseUrl).searchParams.has("error")) {
    return {
      ok: false,
      code: "send_failed",
      status: 502,
      message: "We could not send the e-mail just now. Please try again in a minute.",
    };
  }
  return { ok: true, email: check.email };
}

export type LinkState = "valid" | "expired" | "used";

/** Reads a link's state without spending it (the confirmation page and the confirm handler). */
export async function linkState(prisma: Db, rawEmail: unknown, rawToken: unknown): Promise<LinkState> {
  if (typeof rawEmail !== "string" || typeof rawToken !== "string" || !rawToken || rawToken.length > 256) return "used";
  const hash = createHash("sha256").update(`${rawToken}${authSecret()}`).digest("hex");
  const row = await prisma.verificationToken.findUnique({
    where: { identifier_token: { identifier: normalizeEmail(rawEmail), token: hash } },
    select: { expires: true },
  });
  if (!row) return "used";
  return row.expires.getTime() < Date.now() ? "expired" : "valid";
}
