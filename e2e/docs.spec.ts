import { expect, test, type Page } from "@playwright/test";
import { ERROR_CODES } from "../lib/api/errors";

// The docs site: anchors that error.docsUrl links to, search, code blocks and navigation.

/** The search box and the copy buttons mark themselves once React has hydrated them. */
async function hydrated(page: Page): Promise<void> {
  await expect(page.locator('[role="search"][data-hydrated]')).toBeAttached();
}

test("an error docsUrl fragment lands on that code's section: /docs/errors#rate_limited", async ({ page }) => {
  await page.goto("/docs/errors#rate_limited");
  const section = page.locator("#rate_limited");
  await expect(section).toBeVisible();
  await expect(section).toHaveText(/rate_limited/);
  await expect(section).toBeInViewport();
  await expect(page.locator('[data-error-code="rate_limited"]')).toContainText("429");
});

test("the errors page has a section for every error code, and the limits page one for the fallback", async ({
  page,
}) => {
  await page.goto("/docs/errors");
  for (const code of ERROR_CODES) await expect(page.locator(`h2[id="${code}"]`)).toHaveCount(1);
  await page.goto("/docs/limits");
  await expect(page.locator('h2[id="error"]')).toBeVisible();
});

test("search finds the Rate limits page", async ({ page }) => {
  await page.goto("/docs/quickstart");
  await hydrated(page);
  const search = page.getByRole("combobox", { name: "Search the docs" });
  await search.fill("rate limits");
  const results = page.getByRole("listbox", { name: "Search results" });
  const hit = results.getByRole("link", { name: /^Rate limits/ }).first();
  await expect(hit).toBeVisible();
  await hit.click();
  await expect(page).toHaveURL(/\/docs\/limits$/);
  await expect(page.getByRole("heading", { level: 1, name: "Rate limits" })).toBeVisible();
});

test("search works from the keyboard and reports no results", async ({ page }) => {
  await page.goto("/docs");
  await hydrated(page);
  await page.keyboard.press("/");
  const search = page.getByRole("combobox", { name: "Search the docs" });
  await expect(search).toBeFocused();
  await search.fill("zzzz-nothing-matches");
  await expect(page.getByText("No results")).toBeVisible();
  await search.fill("methodology");
  await search.press("Enter");
  await expect(page).toHaveURL(/\/docs\/methodology/);
});

test("code blocks have a copy button that copies", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/docs/quickstart");
  const block = page.locator("[data-code-block]").first();
  const button = block.getByRole("button", { name: "Copy code" });
  await expect(button).toBeVisible();
  await expect(button).toHaveAttribute("data-hydrated", "");
  await button.click();
  await expect(button).toHaveText("Copied");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe((await block.locator("code").innerText()).trim());
});

test("sidebar links work", async ({ page, request }) => {
  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  const sidebar = page.getByRole("navigation", { name: "Docs" });
  const hrefs = await sidebar.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
  expect(hrefs.length).toBeGreaterThanOrEqual(20);
  for (const href of hrefs) {
    expect(href).toMatch(/^\/docs(\/|$)/);
    expect((await request.get(href)).status(), href).toBe(200);
  }
  await sidebar.getByRole("link", { name: "Authentication" }).click();
  await expect(page).toHaveURL(/\/docs\/authentication$/);
  await expect(page.getByRole("heading", { level: 1, name: "Authentication" })).toBeVisible();
  await expect(sidebar.getByRole("link", { name: "Authentication" })).toHaveAttribute("aria-current", "page");
  await sidebar.getByRole("link", { name: "Latest volatility" }).click();
  await expect(page).toHaveURL(/\/docs\/api\/volatility-latest$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("GET /v1/volatility/{ticker}/latest");
});

test("previous and next links follow the reading order", async ({ page }) => {
  await page.goto("/docs/quickstart");
  const pager = page.getByRole("navigation", { name: "Previous and next pages" });
  await pager.getByRole("link", { name: /Next/ }).click();
  await expect(page).toHaveURL(/\/docs\/authentication$/);
  await pager.getByRole("link", { name: /Previous/ }).click();
  await expect(page).toHaveURL(/\/docs\/quickstart$/);
});

test("the table of contents links to the page's sections", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto("/docs/limits");
  const toc = page.getByRole("navigation", { name: "On this page" });
  await toc.getByRole("link", { name: "Per-address throttle" }).click();
  await expect(page).toHaveURL(/#per-address-throttle$/);
  await expect(page.locator("#per-address-throttle")).toBeInViewport();
});

test("on a phone the sidebar folds behind a menu button", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/docs/quickstart");
  await hydrated(page);
  const sidebar = page.getByRole("navigation", { name: "Docs" });
  await expect(sidebar).toBeHidden();
  await page.getByRole("button", { name: /docs menu/i }).click();
  await expect(sidebar).toBeVisible();
  await sidebar.getByRole("link", { name: "Rate limits" }).click();
  await expect(page).toHaveURL(/\/docs\/limits$/);
  await expect(sidebar).toBeHidden();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test("unknown docs pages are 404s", async ({ request }) => {
  expect((await request.get("/docs/no-such-page")).status()).toBe(404);
});
