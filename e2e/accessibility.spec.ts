import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { mintInPortal, signInThroughOutbox, uniquePortalEmail } from "./support/portal-session";

// axe-core on every page type, public and signed in: no serious or critical violations
// (WCAG 2.1 A and AA rules, colour contrast included). Charts are checked once drawn.

const PUBLIC: Array<[string, string]> = [
  ["home", "/"],
  ["index catalog", "/indices"],
  ["index page", "/indices/PMX-ELEC"],
  ["ceased index page", "/indices/PMX-SPORT"],
  ["volatility catalog", "/volatility"],
  ["volatility page", "/volatility/fed-decision"],
  ["docs overview", "/docs"],
  ["docs endpoint page", "/docs/api/index-history"],
  ["docs errors page", "/docs/errors"],
  ["status", "/status"],
  ["changelog", "/changelog"],
  ["license", "/license"],
  ["terms", "/terms"],
  ["sign-in", "/portal/signin"],
  ["not found", "/no-such-page"],
];

async function audit(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = bad
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes
          .slice(0, 4)
          .map((n) => `${n.target.join(" ")}: ${(n.failureSummary ?? "").split("\n").slice(1, 2).join("").trim()}`)
          .join("\n  ")}`,
    )
    .join("\n");
  expect(bad, `${name}:\n${report}`).toEqual([]);
}

for (const [name, path] of PUBLIC) {
  test(`axe: ${name} (${path})`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    if (path.startsWith("/indices/") || path.startsWith("/volatility/")) {
      await expect(page.locator("svg.recharts-surface .recharts-line-curve").first()).toBeAttached();
    }
    await audit(page, name);
  });
}

test.describe("a new account", () => {
  // It registers its own account, so it starts signed out (not in the setup project's state).
  test.use({ storageState: { cookies: [], origins: [] } });
  test("axe: the portal's signed-in pages (keys, usage, licence request)", async ({ page }) => {
    test.setTimeout(120_000);
    await signInThroughOutbox(page, uniquePortalEmail("e2e-axe"));
    await audit(page, "portal keys (empty)");
    await mintInPortal(page, "axe key");
    await audit(page, "portal keys with a new secret shown");
    await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
    await page.getByRole("link", { name: /^Usage of axe key/ }).click();
    await expect(page.getByRole("heading", { level: 1, name: "axe key" })).toBeVisible();
    await audit(page, "portal key usage");
    await page.goto("/portal/license");
    await expect(page.getByTestId("license-request-form")).toHaveAttribute("data-ready", "true");
    await audit(page, "portal licence request");
  });
});

test("a skip link is the first stop on every page and moves focus to the content", async ({ page }) => {
  await page.goto("/indices");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await skip.press("Enter");
  await expect(page).toHaveURL(/#main$/);
  await expect(page.locator("main#main")).toBeFocused();
});

test("favicon and social card are served", async ({ page, request }) => {
  await page.goto("/");
  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toBeTruthy();
  expect((await request.get(icon!)).status()).toBe(200);
  const og = await page.locator('meta[property="og:image"]').getAttribute("content");
  expect(og).toBeTruthy();
  const card = await request.get(new URL(og!).pathname + new URL(og!).search);
  expect(card.status()).toBe(200);
  expect(card.headers()["content-type"]).toContain("image/png");
});

test("the docs table of contents highlights the section being read", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/docs/errors");
  const toc = page.locator('aside [data-testid="docs-toc"]');
  const links = toc.getByRole("link");
  expect(await links.count()).toBeGreaterThan(3);
  await expect(toc.locator('[aria-current="location"]')).toHaveCount(1);
  const third = links.nth(3);
  const target = ((await third.getAttribute("href")) ?? "").slice(1);
  await page.locator(`[id="${target}"]`).scrollIntoViewIfNeeded();
  await page.evaluate((id) => document.getElementById(id)?.scrollIntoView({ block: "start" }), target);
  await expect(toc.locator('[aria-current="location"]')).toHaveAttribute("href", `#${target}`);
});

test("docs search results are not clipped by the sidebar", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/docs/quickstart");
  await expect(page.locator('[role="search"][data-hydrated]')).toBeAttached();
  await page.getByRole("combobox", { name: "Search the docs" }).fill("rate");
  const results = page.getByRole("listbox", { name: "Search results" });
  await expect(results).toBeVisible();
  const box = (await results.boundingBox())!;
  const sidebar = (await page.locator("#docs-nav").boundingBox())!;
  expect(box.width).toBeGreaterThan(sidebar.width); // wider than the sidebar and still whole:
  const hit = await page.evaluate(() => {
    const list = document.querySelector('[role="listbox"]')!.getBoundingClientRect();
    const x = list.right - 8;
    const y = list.top + 12;
    return document.elementFromPoint(x, y)?.closest('[role="listbox"]') !== null;
  });
  expect(hit, "the right edge of the results is on top, not cut off").toBe(true);
});
