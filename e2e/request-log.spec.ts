import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { mintInPortal, sidewaysOverflow, signInThroughOutbox, uniquePortalEmail } from "./support/portal-session";

// A key's request log in Chromium: a 404 and a 200 made with the key are found on the key's page
// by the request id the API answered with, at 1280 and 390 px, with no sideways scroll and axe clean.
test.use({ storageState: { cookies: [], origins: [] } });

test("a user finds the request their logs mention by its request id, at 1280 and 390 px", async ({ page, request }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInThroughOutbox(page, uniquePortalEmail("e2e-log"));
  const key = await mintInPortal(page, "logged");
  await page.getByRole("button", { name: "I have stored the key, hide it" }).click();

  const headers = { Authorization: `Bearer ${key}` };
  const missing = await request.get("/v1/no-such-endpoint?from=2026-01-01", { headers });
  expect(missing.status()).toBe(404);
  const missingId = missing.headers()["x-request-id"]!;
  const ok = await request.get("/v1", { headers });
  expect(ok.status()).toBe(200);
  const okId = ok.headers()["x-request-id"]!;

  await page.getByRole("link", { name: `Usage of logged (${key.slice(0, 13)}…${key.slice(-4)})` }).click();
  await expect(page.getByRole("heading", { level: 2, name: "Recent requests" })).toBeVisible();
  // Metering writes in batches: reload until both requests are in the log.
  await expect(async () => {
    await page.reload();
    await expect(page.locator(`[data-request-id="${missingId}"]`)).toHaveCount(1, { timeout: 500 });
    await expect(page.locator(`[data-request-id="${okId}"]`)).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 20_000 });

  for (const width of [1280, 390]) {
    await test.step(`${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(page.url().replace(/[?#].*$/, ""));
      await page.getByLabel("Request id").fill(missingId);
      await page.getByRole("button", { name: "Search" }).click();
      await expect(page).toHaveURL(new RegExp(`request=${missingId}`));
      const row = page.locator(`[data-request-id="${missingId}"]`);
      await expect(row).toBeVisible();
      await expect(row).toContainText("404");
      await expect(row).toContainText("not_found");
      await expect(row).toContainText("/v1/no-such-endpoint?from=2026-01-01");
      await expect(page.locator(`[data-request-id="${okId}"]`)).toHaveCount(0);
      await expect(page.getByRole("link", { name: "Show all" })).toBeVisible();

      const { overflow, offenders } = await sidewaysOverflow(page);
      expect(overflow, `sideways scroll at ${width}: ${offenders}`).toBeLessThanOrEqual(0);
      const box = (await row.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      // The request log section (the usage charts above it are another part of the page).
      const results = await new AxeBuilder({ page })
        .include("#requests")
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
        .analyze();
      const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
      await page.screenshot({ path: test.info().outputPath(`request-log-${width}.png`), fullPage: true });
    });
  }

  await page.getByLabel("Request id").fill("no-such-request");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("request-log-empty")).toContainText("No request with an id containing");
});
