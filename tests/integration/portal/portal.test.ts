import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyRunEnvironment, countedUsage, testDb } from "../support/api";
import { startServer, type RunningServer } from "../support/server";
import {
  keyAction,
  linkParts,
  mintInPortal,
  newSecret,
  sessionCookie,
  startPortal,
  storedTokenHash,
  uniqueClient,
  uniqueEmail,
  type Account,
  type Portal,
  type SmtpSink,
} from "../support/portal";

// The developer portal against a production server of its own: the run's PostgreSQL and Redis,
// a real SMTP server on loopback (EMAIL_SERVER), a known AUTH_SECRET, and X-Forwarded-For
// trusted so every test counts its mail throttles under a client address of its own.
applyRunEnvironment();

const MAIL_LIMIT_ADDRESS = 3;
const MAIL_LIMIT_CLIENT = 4;
const SECRET = newSecret();

let smtp: SmtpSink;
let stop: (() => Promise<void>) | undefined;
let p: Portal;

async function prisma() {
  return testDb();
}

async function v1(key: string, path = "/v1"): Promise<number> {
  const res = await fetch(`${p.base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

const mint = (account: Account, name?: string) => mintInPortal(p, account, name);

beforeAll(async () => {
  ({ p, smtp, stop } = await startPortal("portal", {
    AUTH_SECRET: SECRET,
    MAIL_LIMIT_ADDRESS: String(MAIL_LIMIT_ADDRESS),
    MAIL_LIMIT_CLIENT: String(MAIL_LIMIT_CLIENT),
  }));
});

afterAll(() => stop?.());

/**
 * A mail sent after every request before it: a link mailed while answering an earlier request
 * (or queued behind its answer) has reached the SMTP sink by the time this one has.
 */
async function mailBarrier(): Promise<void> {
  const sentinel = uniqueEmail();
  expect((await p.requestLink(sentinel)).status).toBe(200);
  await smtp.next(sentinel);
}
describe("sign-in by magic link over SMTP", () => {
  it("mails a link to a confirmation page; only the confirming POST signs in and lands in the portal", async () => {
    const email = uniqueEmail();
    const requested = await p.requestLink(email);
    expect(requested.status).toBe(200);
    expect(await requested.json()).toEqual({ ok: true, email });

    const mail = await smtp.next(email);
    expect(mail.from).toBe("portal@bench.example");
    expect(mail.to).toEqual([email]);
    expect(mail.subject).toContain("sign-in link");
    expect(mail.link?.startsWith(`${p.base}/portal/confirm?`)).toBe(true);
    const { token } = linkParts(mail.link!);

    // Only the hash is stored, salted with AUTH_SECRET, valid for 15 minutes.
    const db = await prisma();
    const rows = await db.verificationToken.findMany({
      where: { identifier: email },
      select: { token: true, expires: true },
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token).toBe(storedTokenHash(token, SECRET));
    expect(rows[0]!.token).not.toContain(token);
    const minutes = (rows[0]!.expires.getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);

    // A link scanner's GETs spend nothing.
    for (let i = 0; i < 2; i++) {
      const page = await p.get(new URL(mail.link!).pathname + new URL(mail.link!).search);
      expect(page.status).toBe(200);
      expect(page.html).toContain("Confirm sign-in");
      expect(page.html).toContain('action="/api/auth/confirm"');
      expect(sessionCookie(new Response(null, { headers: page.headers }))).toBeNull();
    }
    expect(await db.verificationToken.count({ where: { identifier: email } })).toBe(1);

    const confirmed = await p.confirm(mail.link!);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe("/portal");
    const setCookie = confirmed.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/;\s*Secure/i); // http://127.0.0.1: a Secure cookie would never come back
    expect(await db.verificationToken.count({ where: { identifier: email } })).toBe(0);

    const home = await p.get("/portal", sessionCookie(confirmed)!);
    expect(home.status).toBe(200);
    expect(home.html).toContain(email);
    expect(home.html).toContain("API keys");
    const user = await db.user.findUnique({
      where: { email },
      select: { id: true, emailVerified: true, sessions: { select: { expires: true } } },
    });
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(user?.sessions).toHaveLength(1);
  });

  it("a used link shows a clear page and signs nobody in", async () => {
    const email = uniqueEmail();
    expect((await p.requestLink(email)).status).toBe(200);
    const { link } = await smtp.next(email);
    const first = await p.confirm(link!);
    expect(sessionCookie(first)).toBeTruthy();

    const page = await p.get(new URL(link!).pathname + new URL(link!).search);
    expect(page.status).toBe(200);
    expect(page.html).toContain("This sign-in link was already used");
    expect(page.html).not.toContain('action="/api/auth/confirm"');

    const again = await p.confirm(link!);
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/portal/signin?link=used");
    expect(sessionCookie(again)).toBeNull();
    const landing = await p.get("/portal/signin?link=used");
    expect(landing.html).toContain("This sign-in link was already used");
  });

  it("an expired link shows a clear page and signs nobody in", async () => {
    const email = uniqueEmail();
    expect((await p.requestLink(email)).status).toBe(200);
    const { link } = await smtp.next(email);
    const db = await prisma();
    await db.verificationToken.updateMany({
      where: { identifier: email },
      data: { expires: new Date(Date.now() - 60_000) },
    });

    const page = await p.get(new URL(link!).pathname + new URL(link!).search);
    expect(page.html).toContain("This sign-in link has expired");
    expect(page.html).not.toContain('action="/api/auth/confirm"');

    const res = await p.confirm(link!);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/signin?link=expired");
    expect(sessionCookie(res)).toBeNull();
    expect((await p.get("/portal/signin?link=expired")).html).toContain("This sign-in link has expired");
    expect(await db.user.count({ where: { email } })).toBe(0);
  });

  it("a tampered token or a different address in the link signs nobody in", async () => {
    const email = uniqueEmail();
    expect((await p.requestLink(email)).status).toBe(200);
    const { link } = await smtp.next(email);
    const { token } = linkParts(link!);
    const wrongToken = await p.confirm(
      `${p.base}/portal/confirm?${new URLSearchParams({ token: `${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`, email })}`,
    );
    expect(wrongToken.headers.get("location")).toBe("/portal/signin?link=used");
    const wrongEmail = await p.confirm(
      `${p.base}/portal/confirm?${new URLSearchParams({ token, email: uniqueEmail("other") })}`,
    );
    expect(wrongEmail.headers.get("location")).toBe("/portal/signin?link=used");
    expect(sessionCookie(wrongToken) ?? sessionCookie(wrongEmail)).toBeNull();
    // The real link still works afterwards.
    expect(sessionCookie(await p.confirm(link!))).toBeTruthy();
  });

  it("a confirmation posted from another site is refused (login CSRF)", async () => {
    const email = uniqueEmail();
    expect((await p.requestLink(email)).status).toBe(200);
    const { link } = await smtp.next(email);
    const res = await p.confirm(link!, { origin: "https://attacker.example" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/signin?error=cross_site");
    expect(sessionCookie(res)).toBeNull();
  });

  it("free-mail addresses are refused with a clear message and nothing is sent", async () => {
    for (const email of [`someone-${Date.now()}@gmail.com`, `someone-${Date.now()}@mail.yahoo.com`]) {
      const res = await p.requestLink(email);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("free_mail");
      expect(body.error.message).toContain("work e-mail");
      await mailBarrier();
      expect(smtp.mails.some((m) => m.to.includes(email))).toBe(false);
      expect(await (await prisma()).verificationToken.count({ where: { identifier: email } })).toBe(0);
    }
    const invalid = await p.requestLink("not-an-address");
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { code: string } }).error.code).toBe("invalid_email");
  });

  it("a form posted without JavaScript is answered with a redirect back to the page", async () => {
    const res = await fetch(`${p.base}/api/auth/request-link`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: p.base, "X-Forwarded-For": uniqueClient() },
      body: new URLSearchParams({ email: `x-${Date.now()}@hotmail.com` }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/portal\/signin\?error=free_mail/);
  });

  it("sending is rate-limited per e-mail address", async () => {
    const email = uniqueEmail();
    for (let i = 0; i < MAIL_LIMIT_ADDRESS; i++) expect((await p.requestLink(email)).status).toBe(200);
    const refused = await p.requestLink(email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toContain(email);
    for (let i = 0; i < MAIL_LIMIT_ADDRESS; i++) await smtp.next(email);
    await mailBarrier();
    expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(MAIL_LIMIT_ADDRESS);
  });

  it("sending is rate-limited per client address", async () => {
    const client = uniqueClient();
    for (let i = 0; i < MAIL_LIMIT_CLIENT; i++)
      expect((await p.requestLink(uniqueEmail(), { client })).status).toBe(200);
    const refused = await p.requestLink(uniqueEmail(), { client });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toContain("your network");
    // Another client is not affected.
    expect((await p.requestLink(uniqueEmail(), { client: uniqueClient() })).status).toBe(200);
  });

  it("a link request from another site is refused", async () => {
    const res = await p.requestLink(uniqueEmail(), { origin: "https://attacker.example" });
    expect(res.status).toBe(403);
  });

  it("signing out deletes the session at once", async () => {
    const account = await p.signIn();
    const bad = await fetch(`${p.base}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: p.base, Cookie: account.cookie },
      body: new URLSearchParams({ csrf: "forged" }),
    });
    expect(bad.status).toBe(403);
    expect((await p.get("/portal", account.cookie)).status).toBe(200);

    const res = await fetch(`${p.base}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: p.base, Cookie: account.cookie },
      body: new URLSearchParams({ csrf: account.csrf }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/signin?signedOut=1");
    const token = account.cookie.split("=")[1]!;
    expect(await (await prisma()).session.count({ where: { sessionToken: token } })).toBe(0);
    const after = await p.get("/portal", account.cookie);
    expect(after.status).toBe(307);
    expect(after.headers.get("location")).toContain("/portal/signin");
  });
});

describe("keys in the portal", () => {
  it("account B cannot read, rotate or revoke account A's key by guessing its id", async () => {
    const a = await p.signIn(uniqueEmail("a"));
    const b = await p.signIn(uniqueEmail("b"));
    const key = await mint(a, "a's key");

    const page = await p.get(`/portal/keys/${key.id}`, b.cookie);
    expect(page.status).toBe(404);
    expect(page.html).not.toContain(key.prefix);
    expect((await p.get("/portal", b.cookie)).html).not.toContain(key.prefix);

    for (const action of ["rotate", "revoke"]) {
      const res = await keyAction(p.base, `/portal/api/keys/${key.id}/${action}`, b);
      expect(res.status, action).toBe(404);
      expect(res.body.error?.code).toBe("not_found");
    }
    // A's CSRF token does not work with B's session either.
    const crossToken = await keyAction(p.base, `/portal/api/keys/${key.id}/revoke`, b, { csrf: a.csrf });
    expect(crossToken.status).toBe(403);

    const row = await (await prisma()).apiKey.findUnique({ where: { id: key.id }, select: { status: true } });
    expect(row?.status).toBe("active");
    expect(await v1(key.key)).toBe(200);
    expect((await p.get(`/portal/keys/${key.id}`, a.cookie)).status).toBe(200);
  });

  it("key actions refuse other sites, a missing or wrong CSRF token and a missing session", async () => {
    const a = await p.signIn();
    const cases = [
      { name: "other origin", account: a, options: { origin: "https://attacker.example" }, status: 403 },
      { name: "cross-site fetch metadata", account: a, options: { site: "cross-site" }, status: 403 },
      { name: "no CSRF token", account: a, options: { csrf: null }, status: 403 },
      { name: "wrong CSRF token", account: a, options: { csrf: "A".repeat(43) }, status: 403 },
      { name: "no session", account: null, options: { csrf: a.csrf }, status: 401 },
    ];
    for (const c of cases) {
      const res = await keyAction(p.base, "/portal/api/keys", c.account, c.options);
      expect(res.status, c.name).toBe(c.status);
    }
    const user = await (
      await prisma()
    ).user.findUnique({ where: { email: a.email }, select: { apiKeys: { select: { id: true } } } });
    expect(user?.apiKeys).toHaveLength(0);
  });

  it("mint shows the secret once, a fourth active key is refused, rotate and revoke retire keys at once", async () => {
    const a = await p.signIn();
    const keys = [await mint(a, "one"), await mint(a, "two"), await mint(a, "three")];
    for (const k of keys) expect(k.key).toMatch(/^svc_live_[0-9A-Za-z]{43}$/);

    const fourth = await keyAction(p.base, "/portal/api/keys", a, { body: { name: "four" } });
    expect(fourth.status).toBe(409);
    expect(fourth.body.error?.code).toBe("too_many_keys");
    expect(fourth.body.error?.message).toMatch(/3 active keys.*Revoke one/);

    const list = await p.get("/portal", a.cookie);
    for (const k of keys) {
      expect(list.html).toContain(k.prefix);
      expect(list.html).not.toContain(k.key);
    }

    const rotated = await keyAction(p.base, `/portal/api/keys/${keys[0]!.id}/rotate`, a);
    expect(rotated.status).toBe(200);
    expect(rotated.body.confirmed).toBe(true);
    expect(rotated.body.key).toMatch(/^svc_live_/);
    expect(rotated.body.key).not.toBe(keys[0]!.key);
    expect(await v1(keys[0]!.key)).toBe(401);
    expect(await v1(rotated.body.key!)).toBe(200);
    const again = await keyAction(p.base, `/portal/api/keys/${keys[0]!.id}/rotate`, a);
    expect(again.status).toBe(409);

    const revoked = await keyAction(p.base, `/portal/api/keys/${keys[1]!.id}/revoke`, a);
    // 200 only once every live instance holds it (this server's through Redis, the run's two
    // servers on another prefix from the database): the rule of `npm run keys -- revoke`
    expect(revoked.status).toBe(200);
    expect(revoked.body.confirmed).toBe(true);
    expect(revoked.body.summary?.status).toBe("revoked");
    expect(await v1(keys[1]!.key)).toBe(401);
    expect((await keyAction(p.base, "/portal/api/keys", a, { body: { name: "after revoke" } })).status).toBe(201);

    const notAnId = await keyAction(p.base, "/portal/api/keys/not-a-uuid/revoke", a);
    expect(notAnId.status).toBe(404);
  });

  it("the usage page shows what the API counted in usage_counters, and the quota left now", async () => {
    const a = await p.signIn();
    const key = await mint(a, "metered");
    for (let i = 0; i < 3; i++) expect(await v1(key.key)).toBe(200);
    expect(await v1(key.key, "/v1/indices/NO-SUCH-INDEX/latest")).toBe(404);

    const counted = (await countedUsage(key.id, 4)).rows;
    const sum = (cls?: string) => counted.filter((r) => !cls || r.statusClass === cls).reduce((n, r) => n + r.count, 0);
    expect(sum()).toBe(4);

    const page = await p.get(`/portal/keys/${key.id}`, a.cookie);
    expect(page.status).toBe(200);
    const attr = (testId: string, name: string) =>
      new RegExp(`data-testid="${testId}"[^>]*?data-${name}="(\\d*)"`).exec(page.html)?.[1];
    for (const chart of ["usage-hourly", "usage-daily"]) {
      expect(Number(attr(chart, "total")), chart).toBe(sum());
      expect(Number(attr(chart, "success")), chart).toBe(sum("2xx"));
      expect(Number(attr(chart, "client-error")), chart).toBe(sum("4xx"));
      expect(Number(attr(chart, "rate-limited")), chart).toBe(sum("429"));
    }
    for (const endpoint of new Set(counted.map((r) => r.endpoint))) {
      const total = counted.filter((r) => r.endpoint === endpoint).reduce((n, r) => n + r.count, 0);
      expect(page.html).toContain(`data-endpoint="${endpoint}" data-total="${total}"`);
    }
    // Quota is read without spending: two reads agree, and 4 requests were spent of the minute window.
    const remaining = Number(attr("quota-minute", "remaining"));
    expect(remaining).toBe(60 - 4);
    const reread = await p.get(`/portal/keys/${key.id}`, a.cookie);
    expect(Number(new RegExp(`data-testid="quota-minute"[^>]*?data-remaining="(\\d*)"`).exec(reread.html)?.[1])).toBe(
      remaining,
    );
  });
});

describe("portal responses", () => {
  it("carry a CSP that forbids framing and a same-origin referrer policy", async () => {
    for (const path of ["/portal/signin", "/portal/confirm?token=x&email=y%40example.com"]) {
      const res = await p.get(path);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/script-src [^;]*'nonce-[^']+'/);
      expect(res.headers.get("referrer-policy")).toBe("same-origin");
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(res.html).toContain(`nonce="${nonce}"`);
    }
  });

  it("the development outbox does not exist when EMAIL_SERVER is set", async () => {
    expect((await p.get("/dev/outbox")).status).toBe(404);
  });
});

describe("configuration", () => {
  it("a production server on a shared database without AUTH_SECRET refuses sign-in with a clear message", async () => {
    const saved = process.env.AUTH_SECRET;
    delete process.env.AUTH_SECRET;
    let bare: RunningServer | null = null;
    try {
      bare = await startServer({
        DATABASE_URL: inject("databaseUrl"),
        REDIS_URL: inject("redisUrl"),
        REDIS_PREFIX: `${inject("redisPrefix")}portal-bare:`,
        EMAIL_SERVER: `smtp://127.0.0.1:${smtp.port}`,
        DEMO_MARKET: "0",
        ENGINE_SCHEDULER: "0",
      });
      const page = await fetch(`${bare.baseUrl}/portal/signin`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("AUTH_SECRET is not set");
      const res = await fetch(`${bare.baseUrl}/api/auth/request-link`, {
        method: "POST",
        headers: { Accept: "application/json", Origin: bare.baseUrl },
        body: new URLSearchParams({ email: uniqueEmail() }),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string; message: string } }).error.message).toContain(
        "AUTH_SECRET",
      );
    } finally {
      if (saved !== undefined) process.env.AUTH_SECRET = saved;
      await bare?.stop();
    }
  });
});
