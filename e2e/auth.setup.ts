import { expect, test as setup } from "@playwright/test";
import { signInThroughOutbox } from "./support/portal-session";

// The `setup` project: signs one fresh account in through the real magic-link flow (sign-in page,
// development outbox, confirmation) and saves the signed-in browser state for the `ui` project.

export const SIGNED_IN_STATE = "test-results/.auth/signed-in.json";

setup("sign in once and save the browser state", async ({ page }) => {
  const email = `e2e-setup-${Date.now()}@example.com`;
  await page.goto("/portal");
  await expect(page).toHaveURL(/\/portal\/signin$/);
  await signInThroughOutbox(page, email);
  await expect(page.getByTestId("account-email")).toHaveText(email);
  await page.context().storageState({ path: SIGNED_IN_STATE });
});
