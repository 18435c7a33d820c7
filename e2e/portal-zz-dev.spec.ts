import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

// The developer portal end to end, on the production build with the embedded database and the
// development outbox (no EMAIL_SERVER): register by magic link, then mint, use, rotate, revoke.

async function quietHmr(context: import("@playwright/test").BrowserContext) {
  await context.routeWebSocket(/_next\/hmr/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((m) => { if (/"reloadPage"|"restart"|"serverComponentChanges"|"built"|"building"/.test(String(m))) return; ws.send(m); });
  });
}
test.beforeEach(async ({ context }) => { await quietHmr(context); });

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
  const before = (await page.getByTestId("new-secret").count()) ? await page.getByTestId("new-secret").inputValue() : null;
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


test("screens", async ({ page, request }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/portal/signin");
  await expect(page.getByTestId("sign-in-form")).toHaveAttribute("data-ready", "true");
  await page.screenshot({ path: "/tmp/shot-signin.png", fullPage: true });
  const email = uniqueEmail();
  await page.getByLabel("Work e-mail").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await page.screenshot({ path: "/tmp/shot-sent.png", fullPage: true });
  await page.goto(`/dev/outbox?to=${encodeURIComponent(email)}`);
  await page.screenshot({ path: "/tmp/shot-outbox.png", fullPage: true });
  await page.getByRole("link", { name: "Open sign-in link" }).first().click();
  await expect(page.getByRole("heading", { name: "Confirm sign-in" })).toBeVisible();
  await page.screenshot({ path: "/tmp/shot-confirm.png", fullPage: true });
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("keys-manager")).toHaveAttribute("data-ready", "true", { timeout: 20000 });
  await page.screenshot({ path: "/tmp/shot-empty.png", fullPage: true });
  const k = await mint(page, "production server");
  await mint(page, "staging");
  await page.screenshot({ path: "/tmp/shot-keys.png", fullPage: true });
  for (let i = 0; i < 7; i++) await request.get("/v1", { headers: { Authorization: `Bearer ${k}` } });
  for (let i = 0; i < 2; i++) await request.get("/v1/indices/NOPE/latest", { headers: { Authorization: `Bearer ${k}` } });
  await page.waitForTimeout(3000);
  await page.getByRole("button", { name: /^Revoke staging/ }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: "/tmp/shot-dialog.png" });
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("link", { name: /^Usage of production server/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "production server" })).toBeVisible({ timeout: 20000 });
  await page.waitForTimeout(1500);
  await page.screenshot({ path: "/tmp/shot-usage.png", fullPage: true });
});
