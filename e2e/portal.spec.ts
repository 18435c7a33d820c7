import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

// The developer portal end to end, on the production build with the embedded database and the
// development outbox (no EMAIL_SERVER): register by magic link, then mint, use, rotate, revoke.

// These tests are about signing in: they start signed out, whatever the project's saved state.
test.use({ storageState: { cookies: [], origins: [] } });

const KEY_SHAPE = /^svc_live_[0-9A-Za-z]{43}$/;

function uniqueEmail(): string {
  return `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

async function status(request: APIRequestContext, key: string): Promise<number> {
  const res = await request.get("/v1", { headers: { Authorization: `Bearer ${key}` } });
  return res.status();
}

/** Registers (or signs in) through the sign-in page, the outbox and the confirmation page. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.goto("/portal");
  await expect(page).toHaveURL(/\/portal\/signin$/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in or create an account" })).toBeVisible();
  await expect(page.getByTestId("sign-in-form")).toHaveAttribute("data-ready", "true");

  await page.getByLabel("Work e-mail").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Check your inbox" })).toContainText(email);

  await page.goto(`/dev/outbox?to=${encodeURIComponent(email)}`);
  const mail = page.locator(`[data-testid="outbox-mail"][data-to="${email}"]`).first();
  await expect(mail).toBeVisible();
  await mail.getByRole("link", { name: "Open sign-in link" }).click();

  await expect(page).toHaveURL(/\/portal\/confirm\?/);
  await expect(page.getByRole("heading", { level: 1, name: "Confirm sign-in" })).toBeVisible();
  await page.getByRole("button", { name: "Sign in" }).click();

  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(page.getByTestId("account-email")).toHaveText(email);
  await expect(page.getByTestId("keys-manager")).toHaveAttribute("data-ready", "true");
}

/** Mints a key through the form and returns the secret the page shows once. */
async function mint(page: Page, name: string): Promise<string> {
  const before = (await page.getByTestId("new-secret").count())
    ? await page.getByTestId("new-secret").inputValue()
    : null;
  await page.getByLabel(/Key name/).fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const field = page.getByTestId("new-secret");
  await expect(field).toBeVisible();
  if (before) await expect(field).not.toHaveValue(before);
  const secret = await field.inputValue();
  expect(secret).toMatch(KEY_SHAPE);
  return secret;
}

function masked(secret: string): string {
  return `${secret.slice(0, "svc_live_".length + 4)}…${secret.slice(-4)}`;
}

test("a free-mail address is refused with a clear message", async ({ page }) => {
  await page.goto("/portal/signin");
  await expect(page.getByTestId("sign-in-form")).toHaveAttribute("data-ready", "true");
  await page.getByLabel("Work e-mail").fill(`someone-${Date.now()}@gmail.com`);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "work e-mail" });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("gmail.com");
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toHaveCount(0);
});

test("a developer registers by magic link, then mints, uses, rotates and revokes keys", async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(180_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const email = uniqueEmail();

  await test.step("register through the outbox link and land in the portal", async () => {
    await signIn(page, email);
    await expect(page.getByText("No keys yet")).toBeVisible();
  });

  let first = "";
  await test.step("mint a key: shown once, with a copy button and the warning", async () => {
    first = await mint(page, "e2e first");
    const reveal = page.getByTestId("secret-reveal");
    await expect(reveal).toContainText("It cannot be shown again");
    const copy = reveal.getByRole("button", { name: "Copy key" });
    await expect(copy).toBeVisible();
    await copy.click();
    await expect(reveal).toContainText(/on your clipboard|press Ctrl\+C/);
    const row = page.getByTestId("key-row").filter({ hasText: masked(first) });
    await expect(row).toHaveAttribute("data-status", "active");
    await expect(row).toContainText("60/min");
    await expect(row).not.toContainText(first);
  });

  await test.step("call /v1 with the key and see the usage chart count it", async () => {
    await page.getByRole("link", { name: `Usage of e2e first (${masked(first)})` }).click();
    await expect(page.getByRole("heading", { level: 1, name: "e2e first" })).toBeVisible({ timeout: 15_000 });
    const hourly = page.getByTestId("usage-hourly");
    const before = Number(await hourly.getAttribute("data-total"));
    for (let i = 0; i < 3; i++) expect(await status(request, first)).toBe(200);
    const missing = await request.get("/v1/indices/NO-SUCH-INDEX/latest", {
      headers: { Authorization: `Bearer ${first}` },
    });
    expect(missing.status()).toBe(404);
    await expect
      .poll(
        async () => {
          await page.reload();
          return Number(await page.getByTestId("usage-hourly").getAttribute("data-total"));
        },
        { timeout: 30_000, intervals: [500, 1000, 2000] },
      )
      .toBe(before + 4);
    await expect(hourly).toHaveAttribute("data-success", String(3));
    await expect(hourly).toHaveAttribute("data-client-error", String(1));
    await expect(page.getByTestId("usage-daily")).toHaveAttribute("data-total", String(before + 4));
    await page.getByText("Show the numbers as a table").first().click();
    await expect(page.getByTestId("usage-hourly-table")).toBeVisible();
    await expect(page.getByTestId("endpoints-table").locator('[data-endpoint="/v1"]')).toHaveAttribute(
      "data-total",
      "3",
    );
    const remaining = Number(await page.getByTestId("quota-minute").getAttribute("data-remaining"));
    expect(remaining).toBeLessThanOrEqual(60 - 4);
    await page.getByRole("link", { name: "API keys" }).first().click();
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("keys-manager")).toHaveAttribute("data-ready", "true");
  });

  let second = "";
  await test.step("rotate after confirming: the new secret is shown once, the old key is refused", async () => {
    await page.getByRole("button", { name: `Rotate e2e first (${masked(first)})` }).click();
    const dialog = page.getByRole("dialog", { name: /Rotate/ });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("stops working immediately");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await expect(dialog).toBeHidden({ timeout: 15_000 });
    const field = page.getByTestId("new-secret");
    await expect(field).not.toHaveValue(first);
    second = await field.inputValue();
    expect(second).toMatch(KEY_SHAPE);
    await expect(page.getByTestId("secret-reveal")).toContainText("no longer works");
    expect(await status(request, first)).toBe(401);
    expect(await status(request, second)).toBe(200);
    await expect(page.getByTestId("key-row").filter({ hasText: masked(first) })).toHaveAttribute(
      "data-status",
      "rotated",
    );
  });

  await test.step("revoke after confirming: the key is refused from then on", async () => {
    await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
    await page.getByRole("button", { name: `Revoke e2e first (${masked(second)})` }).click();
    const dialog = page.getByRole("dialog", { name: /Revoke/ });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    expect(await status(request, second)).toBe(200);
    await page.getByRole("button", { name: `Revoke e2e first (${masked(second)})` }).click();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await expect(dialog).toBeHidden({ timeout: 15_000 });
    await expect(page.getByTestId("key-row").filter({ hasText: masked(second) })).toHaveAttribute(
      "data-status",
      "revoked",
    );
    expect(await status(request, second)).toBe(401);
  });

  await test.step("at 3 of 3 active keys Create key is disabled, with the reason beside it", async () => {
    const keys = [await mint(page, "one"), await mint(page, "two"), await mint(page, "three")];
    for (const key of keys) expect(await status(request, key)).toBe(200);
    await expect(page.getByTestId("active-count")).toHaveText("3 of 3 active keys");
    const create = page.getByRole("button", { name: "Create key" });
    await expect(create).toBeDisabled();
    await expect(create).toHaveAccessibleDescription(/3 of 3 active keys.*Revoke a key/);
    await expect(page.getByTestId("create-key-full")).toBeVisible();
    await expect(page.getByTestId("key-row").filter({ hasText: "four" })).toHaveCount(0);
  });

  await test.step("sign out ends the session", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/portal\/signin\?signedOut=1$/);
    await page.goto("/portal");
    await expect(page).toHaveURL(/\/portal\/signin$/);
  });
});

test("a used link shows a clear page and cannot sign in again", async ({ page, browser }) => {
  const email = uniqueEmail();
  await signIn(page, email);
  await page.goto(`/dev/outbox?to=${encodeURIComponent(email)}`);
  const href = await page.getByRole("link", { name: "Open sign-in link" }).first().getAttribute("href");
  expect(href).toBeTruthy();

  const stranger = await browser.newContext();
  const other = await stranger.newPage();
  await other.goto(href!);
  await expect(other.getByRole("heading", { level: 1, name: "This sign-in link was already used" })).toBeVisible();
  await expect(other.getByRole("button", { name: "Sign in" })).toHaveCount(0);
  await other.goto("/portal");
  await expect(other).toHaveURL(/\/portal\/signin$/);
  await stranger.close();
});

test("portal responses carry a CSP that forbids framing and a same-origin referrer policy", async ({ request }) => {
  const res = await request.get("/portal/signin");
  expect(res.status()).toBe(200);
  const csp = res.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toMatch(/script-src [^;]*'nonce-/);
  expect(res.headers()["referrer-policy"]).toBe("same-origin");
});
