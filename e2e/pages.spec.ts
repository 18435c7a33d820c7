import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { mintKey } from "./support/mint-key";

// The public pages read through the same lib/data functions as /v1, so every value a page shows
// must equal the API's for the same index, series and window. Runs on the production build with
// the embedded database and the demo market (see playwright.config.ts).

const INDICES = ["PMX-BTCQ", "PMX-CRYPTO", "PMX-ELEC", "PMX-MACRO", "PMX-SPORT"] as const;
const RANGES = ["7d", "30d", "90d"] as const;
const INTERVALS = ["1d", "1h"] as const;

interface Envelope<T> {
  data: T;
}
interface LevelPoint {
  t: string;
  indexLevel: string;
}
interface VolTick {
  computedAt: string;
  headlinePts: number;
  headlineTenorDays: number;
  status: string;
  counterfactual: { headlinePts: number };
}
interface VolLatest {
  series: { ticker: string; slug: string; definitionLine: string; headlineTenorDays: number };
  tick: VolTick;
  publicationState: string;
  published: VolTick | null;
}

let key = "";

test.beforeAll(() => {
  key = mintKey();
});

async function api<T>(request: APIRequestContext, path: string): Promise<T> {
  const res = await request.get(path, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as Envelope<T>).data;
}

/** Values of the chart's point markers, in drawing order. */
async function chartValues(page: Page, testId: string): Promise<Array<{ t: string; value: string }>> {
  return page
    .locator(`svg[data-testid="${testId}"] .chart-point`)
    .evaluateAll((els) =>
      els.map((el) => ({ t: el.getAttribute("data-t") ?? "", value: el.getAttribute("data-value") ?? "" })),
    );
}

for (const ticker of INDICES) {
  test(`index page ${ticker}: the chart has one point per API history point for every range and interval`, async ({
    page,
    request,
  }, testInfo) => {
    test.setTimeout(240_000);
    for (const range of RANGES) {
      for (const interval of INTERVALS) {
        await test.step(`${range} ${interval}`, async () => {
          const res = await page.goto(`/indices/${ticker}?range=${range}&interval=${interval}`);
          expect(res?.status()).toBe(200);
          const figure = page.getByTestId("level-figure");
          await expect(figure).toHaveAttribute("data-range", range);
          await expect(figure).toHaveAttribute("data-interval", interval);
          // Window and command read together, from one render.
          let shown = { start: "", end: "", command: "" };
          await expect(async () => {
            shown = await page.evaluate(() => {
              const fig = document.querySelector('[data-testid="level-figure"]');
              return {
                start: fig?.getAttribute("data-start") ?? "",
                end: fig?.getAttribute("data-end") ?? "",
                command: document.querySelector('[data-testid="api-call"]')?.getAttribute("data-command") ?? "",
              };
            });
          }).toPass({ timeout: 15_000 });
          const { start, end, command } = shown;
          expect(start).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
          // The copyable call on the page asks for exactly this window.
          expect(command).toContain(`/v1/indices/${ticker}/history?interval=${interval}&start=${start}&end=${end}"`);

          const history = await api<{ count: number; points: LevelPoint[] }>(
            request,
            `/v1/indices/${ticker}/history?interval=${interval}&start=${start}&end=${end}`,
          );
          await expect(figure).toHaveAttribute("data-count", String(history.count));
          if (history.count === 0) {
            await expect(page.getByTestId("level-chart-empty")).toBeVisible();
          } else {
            const points = page.locator('svg[data-testid="level-chart"] .chart-point');
            await expect(points).toHaveCount(history.count);
            expect(await chartValues(page, "level-chart")).toEqual(
              history.points.map((p) => ({ t: p.t, value: p.indexLevel })),
            );
          }
          await figure.screenshot({ path: testInfo.outputPath(`index-${ticker}-${range}-${interval}.png`) });
        });
      }
    }
  });
}

test("the chart tooltip shows the exact decimal level and its time", async ({ page, request }) => {
  await page.goto("/indices/PMX-ELEC?range=7d&interval=1d");
  const figure = page.getByTestId("level-figure");
  const start = (await figure.getAttribute("data-start")) ?? "";
  const end = (await figure.getAttribute("data-end")) ?? "";
  const history = await api<{ points: LevelPoint[] }>(
    request,
    `/v1/indices/PMX-ELEC/history?interval=1d&start=${start}&end=${end}`,
  );
  const last = history.points.at(-1);
  expect(last).toBeDefined();
  await page.locator('svg[data-testid="level-chart"] .chart-point').last().hover({ force: true });
  const tooltip = page.getByTestId("chart-tooltip");
  await expect(tooltip).toContainText(last!.indexLevel);
  await expect(tooltip.locator("time")).toHaveAttribute("datetime", last!.t);
});

test("/indices shows every index with the API's latest level, status and stale flag", async ({ page, request }) => {
  const catalog = await api<{
    count: number;
    indices: Array<{ ticker: string; publicStatus: string; stale: boolean }>;
  }>(request, "/v1/indices");
  expect(catalog.indices.map((i) => i.ticker)).toEqual([...INDICES]);
  await page.goto("/indices");
  await expect(page.getByRole("heading", { level: 1, name: "Indices" })).toBeVisible();
  await expect(page.getByTestId("index-row")).toHaveCount(catalog.count);
  for (const entry of catalog.indices) {
    const latest = await api<{ indexLevel: string; publicStatus: string }>(
      request,
      `/v1/indices/${entry.ticker}/latest`,
    );
    const row = page.locator(`[data-testid="index-row"][data-ticker="${entry.ticker}"]`);
    const level = row.getByTestId("index-level");
    await expect(level).toHaveAttribute("data-value", latest.indexLevel);
    await expect(level).toHaveText(latest.indexLevel);
    await expect(row.getByTestId("index-status")).toHaveAttribute("data-status", entry.publicStatus);
    await expect(row.getByTestId("stale-badge")).toHaveCount(entry.stale ? 1 : 0);
  }
  await expect(
    page.locator('[data-testid="index-row"] [data-testid="index-status"][data-status="ceased"]'),
  ).toHaveCount(1);
  await expect(
    page.locator('[data-testid="index-row"] [data-testid="index-status"][data-status="resolved"]'),
  ).toHaveCount(1);
});

test("an index page's latest level box equals the API's latest", async ({ page, request }) => {
  const latest = await api<{ indexLevel: string; computedAt: string; compositionVersion: string }>(
    request,
    "/v1/indices/PMX-MACRO/latest",
  );
  await page.goto("/indices/PMX-MACRO");
  await expect(page.getByTestId("latest-level")).toHaveAttribute("data-value", latest.indexLevel);
  await expect(page.getByTestId("latest-computed-at")).toHaveAttribute("datetime", latest.computedAt);
  await expect(page.getByTestId("composition-version")).toHaveText(latest.compositionVersion);
});

test("a volatility page shows the API's headline with its tenor, the definition line and the counterfactual", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const catalog = await api<{
    series: Array<{ ticker: string; slug: string; headlinePts: number; headlineTenorDays: number }>;
  }>(request, "/v1/volatility");
  expect(catalog.series.length).toBeGreaterThanOrEqual(4);
  for (const entry of catalog.series) {
    await test.step(entry.ticker, async () => {
      const latest = await api<VolLatest>(request, `/v1/volatility/${entry.ticker}/latest`);
      // The surface shows the newest tick when published, else the newest published value.
      const shown =
        latest.publicationState === "published" || latest.published === null ? latest.tick : latest.published;
      expect(shown.headlinePts).toBe(entry.headlinePts);

      const res = await page.goto(`/volatility/${entry.slug}`);
      expect(res?.status()).toBe(200);
      const headline = page.getByTestId("volatility-headline");
      await expect(headline).toHaveAttribute("data-value", String(shown.headlinePts));
      await expect(headline).toHaveAttribute("data-tenor-days", String(shown.headlineTenorDays));
      await expect(headline).toHaveAttribute("data-publication-state", latest.publicationState);
      await expect(headline).toHaveAttribute("data-source", shown === latest.tick ? "tick" : "published");
      await expect(headline).toContainText(`${shown.headlinePts.toFixed(2)} pts over ${shown.headlineTenorDays} days`);
      await expect(page.getByTestId("definition-line")).toHaveText(latest.series.definitionLine);
      await expect(page.getByTestId("volatility-status")).toHaveAttribute("data-status", shown.status);
      await expect(page.getByTestId("volatility-counterfactual")).toHaveAttribute(
        "data-value",
        String(shown.counterfactual.headlinePts),
      );

      const figure = page.getByTestId("volatility-figure");
      const start = (await figure.getAttribute("data-start")) ?? "";
      const history = await api<{ count: number; points: Array<{ t: string; headlinePts: number }> }>(
        request,
        `/v1/volatility/${entry.ticker}/history?start=${start}&limit=5000`,
      );
      await expect(page.locator('svg[data-testid="volatility-chart"] .chart-point')).toHaveCount(history.count);
      const values = await chartValues(page, "volatility-chart");
      expect(values).toEqual([...history.points].reverse().map((p) => ({ t: p.t, value: String(p.headlinePts) })));
      await expect(page.locator('svg[data-testid="term-chart"]')).toBeVisible();
    });
  }
  await page.getByTestId("volatility-figure").screenshot({ path: test.info().outputPath("volatility-history.png") });
});

test("/volatility and the home page quote every headline with its tenor, as the API does", async ({
  page,
  request,
}) => {
  const catalog = await api<{ series: Array<{ ticker: string; headlinePts: number; headlineTenorDays: number }> }>(
    request,
    "/v1/volatility",
  );
  for (const path of ["/volatility", "/"]) {
    await page.goto(path);
    for (const entry of catalog.series) {
      const cell = page.locator(
        `[data-testid="volatility-row"][data-ticker="${entry.ticker}"] [data-testid="volatility-headline"]`,
      );
      await expect(cell).toHaveAttribute("data-value", String(entry.headlinePts));
      await expect(cell).toHaveText(`${entry.headlinePts.toFixed(2)} pts over ${entry.headlineTenorDays} days`);
    }
  }
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("main").getByRole("link", { name: "Read the docs" })).toHaveAttribute("href", "/docs");
  await expect(page.getByRole("main").getByRole("link", { name: "Get an API key" })).toHaveAttribute("href", "/portal");
});

test("a series ticker in the URL redirects to its slug", async ({ page, request }) => {
  const latest = await api<VolLatest>(request, "/v1/volatility/PMV-FED/latest");
  await page.goto("/volatility/PMV-FED?range=7d");
  await expect(page).toHaveURL(new RegExp(`/volatility/${latest.series.slug}\\?range=7d$`));
  await expect(page.getByTestId("volatility-figure")).toHaveAttribute("data-range", "7d");
});

test("an unknown ticker or slug is a real 404", async ({ page }) => {
  for (const path of ["/indices/PMX-NOPE", "/volatility/no-such-series", "/volatility/PMX-ELEC"]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Not found" })).toBeVisible();
  }
});

test("on a phone (390x844) /indices has no horizontal page overflow", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/indices", "/", "/indices/PMX-ELEC", "/volatility/fed-decision"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    if (path !== "/" && path !== "/indices")
      await expect(page.locator("svg[data-testid$='-chart']").first()).toBeVisible();
    const [overflow, offenders] = await page.evaluate(() => {
      const wide = [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)}`);
      return [
        document.documentElement.scrollWidth - document.documentElement.clientWidth,
        wide.slice(0, 5).join(", "),
      ] as const;
    });
    expect(overflow, `${path}: ${offenders}`).toBeLessThanOrEqual(0);
  }
  await page.goto("/indices");
  await page.screenshot({ path: test.info().outputPath("indices-phone.png"), fullPage: true });
});

test("chart controls are labelled links that keep the other setting", async ({ page }) => {
  await page.goto("/indices/PMX-CRYPTO?range=7d&interval=1h");
  const range = page.getByRole("link", { name: "Range: 90 days" });
  await expect(range).toHaveAttribute("href", "/indices/PMX-CRYPTO?range=90d&interval=1h");
  await expect(page.getByRole("link", { name: "Range: 7 days" })).toHaveAttribute("aria-current", "true");
  await expect(page.getByRole("link", { name: "Interval: hourly" })).toHaveAttribute("aria-current", "true");
  await range.click();
  await expect(page).toHaveURL(/range=90d&interval=1h$/);
  await expect(page.getByTestId("level-figure")).toHaveAttribute("data-range", "90d");
});
