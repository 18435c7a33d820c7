import "server-only";
import NextAuth, { type NextAuthConfig } from "next-auth";
import type { EmailConfig } from "next-auth/providers/email";
import { portalAdapter } from "@/lib/auth/adapter";
import { checkWorkEmail } from "@/lib/auth/email-address";
import { authSecret } from "@/lib/auth/secret";
import { config } from "@/lib/config";
import { magicLinkMail } from "@/lib/mail/magic-link-mail";
import type { Mailer } from "@/lib/mail/send-mail";
import { root } from "@/lib/root";

/** A magic link works once, for this long. */
export const MAGIC_LINK_MINUTES = 15;
export const SESSION_MAX_AGE_DAYS = 14;
export const EMAIL_PROVIDER_ID = "email";
export const AUTH_BASE_PATH = "/api/auth";

/**
 * Cookies are `Secure` (and `__Secure-` prefixed) when the public address is https. The
 * production build also runs over plain http on 127.0.0.1 in tests and the embedded demo, where
 * a Secure cookie would never come back.
 */
export function secureCookies(): boolean {
  return config().baseUrl.startsWith("https://");
}

/** Name of the Auth.js database-session cookie under the settings above. */
export function sessionCookieName(): string {
  return `${secureCookies() ? "__Secure-" : ""}authjs.session-token`;
}

/**
 * The mailed link opens the confirmation page, never the Auth.js callback: a link scanner's GET
 * consumes nothing; only the page's POST (app/api/auth/confirm) spends the token. The address
 * comes from PUBLIC_BASE_URL, never from the request's Host header.
 */
export function confirmUrl(email: string, token: string): string {
  return `${config().baseUrl}/portal/confirm?${new URLSearchParams({ token, email })}`;
}

function emailProvider(secret: string, mailer: Mailer): EmailConfig {
  return {
    id: EMAIL_PROVIDER_ID,
    type: "email",
    name: "E-mail",
    maxAge: MAGIC_LINK_MINUTES * 60,
    // Auth.js stores sha256(token + secret) in verification_tokens, never the token itself.
    secret,
    async sendVerificationRequest({ identifier, token }) {
      await mailer.send(
        magicLinkMail({ to: identifier, url: confirmUrl(identifier, token), minutes: MAGIC_LINK_MINUTES }),
      );
    },
    options: {},
  };
}

function authConfig(): NextAuthConfig {
  const secret = authSecret();
  const { db, mailer } = root();
  return {
    secret,
    basePath: AUTH_BASE_PATH,
    // Host headers only shape internal request URLs here: mailed links use PUBLIC_BASE_URL and
    // every redirect the portal sends is a relative path.
    trustHost: true,
    useSecureCookies: secureCookies(),
    adapter: portalAdapter(db),
    // Database sessions: one row per sign-in, so signing out (or deleting the row) ends it at once.
    session: { strategy: "database", maxAge: SESSION_MAX_AGE_DAYS * 24 * 60 * 60, updateAge: 24 * 60 * 60 },
    providers: [emailProvider(secret, mailer)],
    pages: { signIn: "/portal/signin", error: "/portal/signin", verifyRequest: "/portal/signin" },
    callbacks: {
      // Defense in depth: the request handler refuses free mail first, with a message.
      signIn({ user }) {
        return checkWorkEmail(user.email, config().freeMailDomains).ok;
      },
      session({ session, user }) {
        return { ...session, user: { id: user.id, email: user.email, emailVerified: user.emailVerified } };
      },
    },
    logger: {
      error(error) {
        const cause = (error as Error & { cause?: { err?: Error } }).cause?.err;
        console.error(
          `[auth] ${error.name}: ${error.message.split("\n")[0]}${cause ? ` (${cause.message.split("\n")[0]})` : ""}`,
        );
      },
      warn(code) {
        console.warn(`[auth] warning: ${code}`);
      },
      debug() {},
    },
  };
}

// Lazy: the secret, the adapter and the mailer are resolved per call, never at import (build).
export const { auth, handlers, signIn, signOut } = NextAuth(() => authConfig());
