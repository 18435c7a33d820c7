import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { expect, inject } from "vitest";
import { waitFor } from "../../support/wait-for";
import { startServer, type RunningServer } from "./server";

/** A mail as the SMTP server received it, with the sign-in link pulled out of the body. */
export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  raw: string;
  link: string | null;
}

export interface SmtpSink {
  port: number;
  mails: CapturedMail[];
  /** The next not yet taken mail to `to` (waits for it). */
  next(to: string, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

/** Soft line breaks and =XX escapes of quoted-printable, so the link reads as sent. */
function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function parse(raw: string, from: string, to: string[]): CapturedMail {
  const headerEnd = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, headerEnd).replace(/\r?\n[ \t]+/g, " ");
  const subject = /^subject:\s*(.*)$/im.exec(headers)?.[1]?.trim() ?? "";
  const body = decodeQuotedPrintable(raw.slice(headerEnd));
  const link = /https?:\/\/[^\s"<>]+\/portal\/confirm\?[^\s"<>]+/.exec(body)?.[0]?.replaceAll("&amp;", "&") ?? null;
  return { from, to, subject, raw, link };
}

/** A real SMTP server on loopback (no TLS, no auth) that keeps every message it accepts. */
export async function startSmtp(): Promise<SmtpSink> {
  const mails: CapturedMail[] = [];
  const taken = new Set<CapturedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        mails.push(parse(Buffer.concat(chunks).toString("utf8"), from, to));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    async next(to, timeoutMs = 15_000) {
      const mail = await waitFor(
        `a mail to ${to}`,
        () => mails.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase())),
        { timeoutMs, intervalMs: 50 },
      ).catch((error: Error) => {
        throw new Error(`${error.message} (received: ${mails.map((m) => m.to.join(",")).join("; ") || "none"})`);
      });
      taken.add(mail);
      return mail;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** How Auth.js stores a magic-link token: sha256(token + secret), hex. */
export function storedTokenHash(token: string, secret: string): string {
  return createHash("sha256").update(`${token}${secret}`).digest("hex");
}

export function uniqueEmail(tag = "dev"): string {
  return `${tag}-${randomUUID()}@example.com`;
}

/** A made-up client address per call (the test server trusts X-Forwarded-For), so throttles never collide. */
export function uniqueClient(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

export interface Portal {
  base: string;
  smtp: SmtpSink;
  /** POST /api/auth/request-link as the portal's form script does. */
  requestLink(email: string, options?: { client?: string; origin?: string }): Promise<Response>;
  /** GET a page (optionally signed in), no redirects followed. */
  get(path: string, cookie?: string): Promise<{ status: number; html: string; headers: Headers }>;
  /** POST the confirmation form for a mailed link, no redirects followed. */
  confirm(link: string, options?: { cookie?: string; origin?: string }): Promise<Response>;
  /** Registers or signs in through the whole mail round trip; returns the session cookie and CSRF token. */
  signIn(email?: string): Promise<Account>;
}

export interface Account {
  email: string;
  cookie: string;
  csrf: string;
}

export const SESSION_COOKIE = "authjs.session-token";

export function sessionCookie(res: Response): string | null {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  const value = line?.split(";")[0]?.slice(SESSION_COOKIE.length + 1);
  return value ? `${SESSION_COOKIE}=${value}` : null;
}

export function linkParts(link: string): { token: string; email: string } {
  const u = new URL(link);
  return { token: u.searchParams.get("token") ?? "", email: u.searchParams.get("email") ?? "" };
}

export function portal(base: string, smtp: SmtpSink): Portal {
  const self: Portal = {
    base,
    smtp,
    requestLink(email, options = {}) {
      return fetch(`${base}/api/auth/request-link`, {
        method: "POST",
        redirect: "manual",
        headers: {
          Accept: "application/json",
          Origin: options.origin ?? base,
          "X-Forwarded-For": options.client ?? uniqueClient(),
        },
        body: new URLSearchParams({ email }),
      });
    },
    async get(path, cookie) {
      const res = await fetch(`${base}${path}`, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
      return { status: res.status, html: await res.text(), headers: res.headers };
    },
    confirm(link, options = {}) {
      const { token, email } = linkParts(link);
      return fetch(`${base}/api/auth/confirm`, {
        method: "POST",
        redirect: "manual",
        headers: { Origin: options.origin ?? base, ...(options.cookie ? { Cookie: options.cookie } : {}) },
        body: new URLSearchParams({ token, email }),
      });
    },
    async signIn(email = uniqueEmail()) {
      const res = await self.requestLink(email);
      expect(res.status, await res.clone().text()).toBe(200);
      const mail = await smtp.next(email);
      expect(mail.link).toBeTruthy();
      const confirmed = await self.confirm(mail.link!);
      expect(confirmed.status).toBe(303);
      expect(confirmed.headers.get("location")).toBe("/portal");
      const cookie = sessionCookie(confirmed);
      expect(cookie).toBeTruthy();
      const page = await self.get("/portal", cookie!);
      expect(page.status).toBe(200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
      expect(csrf).toBeTruthy();
      return { email, cookie: cookie!, csrf: csrf! };
    },
  };
  return self;
}

/** Calls a portal key route as `account` (same-origin browser headers unless overridden). */
export async function keyAction(
  base: string,
  path: string,
  account: Account | null,
  options: { csrf?: string | null; origin?: string; site?: string; body?: unknown } = {},
): Promise<{
  status: number;
  body: Record<string, unknown> & {
    error?: { code: string; message: string };
    key?: string;
    summary?: { id: string; prefix: string; lastFour: string; status: string };
  };
}> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json",
    Origin: options.origin ?? base,
  };
  if (options.site) headers["Sec-Fetch-Site"] = options.site;
  if (account) headers.Cookie = account.cookie;
  const csrf = options.csrf === undefined ? account?.csrf : options.csrf;
  if (csrf) headers["X-CSRF-Token"] = csrf;
  const res = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(options.body ?? {}) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as never };
}

/**
 * The portal on a production server of the test file's own: the run's PostgreSQL and Redis (under
 * `prefix`), mail to a real SMTP server on loopback, a known AUTH_SECRET and X-Forwarded-For
 * trusted, no demo market. `stop` ends the server and the SMTP server.
 */
export async function startPortal(
  prefix: string,
  env: Record<string, string> = {},
): Promise<{ p: Portal; smtp: SmtpSink; server: RunningServer; stop: () => Promise<void> }> {
  const smtp = await startSmtp();
  const server = await startServer({
    DATABASE_URL: inject("databaseUrl"),
    REDIS_URL: inject("redisUrl"),
    REDIS_PREFIX: `${inject("redisPrefix")}${prefix}:`,
    EMAIL_SERVER: `smtp://127.0.0.1:${smtp.port}`,
    EMAIL_FROM: "PM Benchmarks <portal@bench.example>",
    AUTH_SECRET: newSecret(),
    TRUST_PROXY: "1",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    METERING_FLUSH_MS: "200",
    ...env,
  }).catch(async (error: unknown) => {
    await smtp.close();
    throw error;
  });
  const stop = async () => {
    await server.stop();
    await smtp.close();
  };
  return { p: portal(server.baseUrl, smtp), smtp, server, stop };
}

/** A key minted in the portal by `account`: its id, secret and display prefix. */
export async function mintInPortal(
  p: Portal,
  account: Account,
  name = "test",
): Promise<{ id: string; key: string; prefix: string }> {
  const res = await keyAction(p.base, "/portal/api/keys", account, { body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.summary!.id, key: res.body.key!, prefix: res.body.summary!.prefix };
}
