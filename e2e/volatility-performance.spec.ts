import { expect, test } from "@playwright/test";

// Volatility pages on the production build at 1280 px: under 300 KB of HTML per page, and the
// first chart drawn from the HTML itself (the server's SVG drawing, before any script runs),
// ahead of the interactive chart. How soon is a figure, printed and attached (median of five
// loads after a warm-up), not an assertion: speed targets live in figures, a shared machine's
// load must not decide a test. The target (first chart within 1 s) is reported in BENCHMARKS.md.

const HTML_LIMIT = 300_000;
const LOADS = 5;

/**
 * Records, in ms since navigation start, when the first history chart is drawn (its lines in
 * the DOM: the server-drawn SVG that arrives with the HTML, or the interactive chart) and when
 * the interactive chart has drawn its headline line.
 */
const RECORD_FIRST_DRAW = () => {
  const w = window as unknown as { __firstChart?: number; __interactive?: number };
  const check = () => {
    const now = performance.now();
    if (
      w.__firstChart === undefined &&
      document.querySelector(
        '[data-testid="volatility-chart-frame"] .chart-line, svg[data-testid="volatility-chart"] .recharts-line-curve',
      )
    ) {
      w.__firstChart = now;
    }
    if (
      w.__interactive === undefined &&
      document.querySelector('svg[data-testid="volatility-chart"] .recharts-line-curve')
    ) {
      w.__interactive = now;
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true });
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test("volatility pages: HTML under 300 KB, the first chart drawn from the HTML before the interactive one, figures at 1280 px", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(420_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.addInitScript(RECORD_FIRST_DRAW);
  const catalog = await page.goto("/volatility");
  expect(catalog?.status()).toBe(200);
  const slugs = await page
    .locator('[data-testid="volatility-row"] a[href^="/volatility/"]')
    .evaluateAll((as) => [
      ...new Set(as.map((a) => (a.getAttribute("href") ?? "").split("?")[0]!.replace("/volatility/", ""))),
    ]);
  expect(slugs.length).toBeGreaterThanOrEqual(4);

  const figures: string[] = [];
  for (const slug of slugs) {
    for (const range of ["30d", "90d"] as const) {
      const path = `/volatility/${slug}?range=${range}`;
      const res = await request.get(path);
      expect(res.status()).toBe(200);
      const html = await res.text();
      const bytes = Buffer.byteLength(html);
      expect(bytes, `${path}: ${bytes} bytes of HTML`).toBeLessThan(HTML_LIMIT);
      // The first drawing is in the HTML: lines a browser paints without running any script.
      expect(html).toMatch(/data-testid="volatility-chart-frame"[\s\S]*class="chart-line/);

      await page.goto(path); // warm-up: compiled code and data caches, as for any visitor after the first
      await expect(page.locator('svg[data-testid="volatility-chart"] .recharts-line-curve').first()).toBeAttached({
        timeout: 30_000,
      });
      const draws: number[] = [];
      const interactive: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        await page.goto(path);
        await expect(page.locator('svg[data-testid="volatility-chart"] .recharts-line-curve').first()).toBeAttached({
          timeout: 30_000,
        });
        const t = await page.evaluate(() => {
          const w = window as unknown as { __firstChart?: number; __interactive?: number };
          return { first: w.__firstChart ?? Number.NaN, interactive: w.__interactive ?? Number.NaN };
        });
        draws.push(t.first);
        interactive.push(t.interactive);
      }
      const m = median(draws);
      figures.push(
        `${path}: ${(bytes / 1024).toFixed(0)} KB HTML, first chart drawn at ${m.toFixed(0)} ms (median; loads ${draws.map((d) => d.toFixed(0)).join(", ")} ms), interactive chart at ${median(interactive).toFixed(0)} ms (median)`,
      );
      for (let i = 0; i < LOADS; i++) {
        expect(draws[i], `${path}: the first drawing was never seen`).not.toBeNaN();
        expect(draws[i]!, `${path}: drawn at ${draws[i]} ms, interactive at ${interactive[i]} ms`).toBeLessThanOrEqual(
          interactive[i]!,
        );
      }
    }
  }
  console.log(figures.join("\n"));
  await testInfo.attach("volatility-figures.txt", { body: figures.join("\n"), contentType: "text/plain" });
});
