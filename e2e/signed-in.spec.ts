import { expect, test } from "@playwright/test";

// Starts from the state the `setup` project saved: already signed in, no magic link needed.
test("the saved signed-in state opens the key list directly", async ({ page }) => {
  await page.goto("/portal");
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(page.getByTestId("account-email")).toHaveText(/^e2e-setup-\d+@example\.com$/);
});
