import { expect, test as setup } from "@playwright/test";

// The `setup` project: signs one fresh account in through the real magic-link flow (sign-in page,
// development outbox, confirmation) and saves the signed-in browser state for the `ui` project.

export const SIGNED_IN_STATE = "test-results/.auth/signed-in.json";

setup("sign in once and save the browser state", async ({ page }) => {
  const email = `e2e-setup-${Date.now()}@example.com`;
  await page.goto("/portal");
  await expect(page).toHaveURL(/\/portal\/signin$/);
  await expect(page.getByTestId("sign-in-form")).toHaveAttribute("data-ready", "true");
  await page.getByLabel("Work e-mail").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await page.goto(`/dev/outbox?to=${encodeURIComponent(email)}`);
  await page.locator(`[data-testid="outbox-mail"][data-to="${email}"]`).first().getByRole("link", { name: "Open sign-in link" }).click();
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByTestId("account-email")).toHaveText(email);
  await page.context().storageState({ path: SIGNED_IN_STATE });
});
