import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { mintKey } from "./support/mint-key";

// Try it in the docs: a key pasted once (kept in sessionStorage, sent only to this site's /v1)
// runs every endpoint page's example live and shows the status, headers and body, at 1280 and
// 390 px, axe clean.
test.use({ storageState: { cookies: [], origins: [] } });

const ENDPOINT_PAGES = [
  "service-index",
  "indices",
  "index-latest",
  "index-history",
  "reconstitutions",
  "volatility",
  "volatility-latest",
  "volatility-history",
  "downloads",
];

test("a key pasted once runs every endpoint page's example, only against /v1, at 1280 and 390 px", async ({ page }) => {
  test.setTimeout(240_000);
  const key = mintKey();
  const requests: Array<{ url: string; auth: string | null }> = [];
  page.on("request", (r) => requests.push({ url: r.url(), auth: r.headers().authorization ?? null })); // the page's own requests

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/docs/api/index-latest");
  const tryIt = page.getByTestId("try-it").first();
  await expect(tryIt).toHaveAttribute("data-ready", "true");
  await tryIt.getByLabel("Your API key").fill(key);
  await tryIt.getByRole("button", { name: "Use this key" }).click();
  expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([key]);
  expect(await page.evaluate(() => Object.keys(localStorage).length + document.cookie.length)).toBe(0);

  for (const width of [1280, 390]) {
    for (const slug of ENDPOINT_PAGES) {
      await test.step(`${slug} at ${width} px`, async () => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`/docs/api/${slug}`);
        const panel = page.getByTestId("try-it").first();
        await expect(panel).toHaveAttribute("data-ready", "true");
        const path = (await panel.getAttribute("data-path"))!;
        await panel.getByRole("button", { name: "Send request" }).click();
        const response = panel.getByTestId("try-it-response");
        await expect(response).toBeVisible();
        // What the API answers this request (200 with the demo market's data; the spec's error otherwise).
        const direct = await page.request.get(path, { headers: { Authorization: `Bearer ${key}` } });
        await expect(response).toHaveAttribute("data-status", String(direct.status()));
        await panel.getByText(/^Response headers/).click();
        const headers = panel.getByTestId("try-it-headers");
        await expect(headers).toContainText("x-request-id");
        await expect(headers).toContainText("x-ratelimit-remaining");
        const body = JSON.parse((await panel.getByTestId("try-it-body").textContent())!) as {
          data?: unknown;
          meta?: unknown;
          error?: { requestId: string };
        };
        if (direct.status() === 200) {
          expect(body.data).toBeTruthy();
          expect(body.meta).toBeTruthy();
        } else {
          await expect(headers).toContainText(body.error!.requestId);
        }
        const sent = requests.filter((r) => r.auth !== null);
        expect(sent.at(-1)!.url).toBe(new URL(path, page.url()).href);
        if (slug === "index-latest" || slug === "downloads") {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `sideways scroll at ${width}`).toBeLessThanOrEqual(0);
          const results = await new AxeBuilder({ page })
            .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
            .analyze();
          const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
          expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
          await page.screenshot({ path: test.info().outputPath(`try-it-${slug}-${width}.png`), fullPage: true });
        }
      });
    }
  }

  // The key went with requests to this site's /v1 only.
  const origin = new URL(page.url()).origin;
  const withKey = requests.filter((r) => r.auth !== null);
  expect(withKey.length).toBe(2 * ENDPOINT_PAGES.length);
  for (const r of withKey) {
    expect(r.auth).toBe(`Bearer ${key}`);
    expect(r.url.startsWith(`${origin}/v1`)).toBe(true);
  }
  expect(requests.filter((r) => r.url.includes(key))).toEqual([]);

  await page.getByRole("button", { name: "Forget key" }).first().click();
  await expect(page.getByLabel("Your API key").first()).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});
