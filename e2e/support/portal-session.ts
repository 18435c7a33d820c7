import { expect, type Page } from "@playwright/test";

export function uniquePortalEmail(prefix = "e2e-18"): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Registers (or signs in) through the sign-in page, the development outbox and the confirmation page. */
export async function signInThroughOutbox(page: Page, email: string): Promise<void> {
  await page.goto("/portal/signin");
  await expect(page.getByTestId("sign-in-form")).toHaveAttribute("data-ready", "true");
  await page.getByLabel("Work e-mail").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await page.goto(`/dev/outbox?to=${encodeURIComponent(email)}`);
  await page
    .locator(`[data-testid="outbox-mail"][data-to="${email}"]`)
    .first()
    .getByRole("link", { name: "Open sign-in link" })
    .click();
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByTestId("keys-manager")).toHaveAttribute("data-ready", "true");
}

/** Mints a key through the portal form and returns its secret (shown once). */
export async function mintInPortal(page: Page, name: string): Promise<string> {
  const field = page.getByTestId("new-secret");
  const before = (await field.count()) ? await field.inputValue() : null;
  await page.getByLabel(/Key name/).fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(field).toBeVisible();
  if (before) await expect(field).not.toHaveValue(before);
  return field.inputValue();
}

/** Horizontal overflow of the document in CSS pixels, and the first elements sticking out. */
export async function sidewaysOverflow(page: Page): Promise<{ overflow: number; offenders: string }> {
  return page.evaluate(() => {
    const wide = [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 50)}`);
    return {
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      offenders: wide.slice(0, 5).join(", "),
    };
  });
}
