import { expect, test } from "@playwright/test";
import { mintKey } from "./support/mint-key";

// Rule: the forecast record (every closed window's expected move at its start and realized move
// over it) is on each volatility page and in the monthly bundles. Runs on the production build with
// the demo market, whose four closed months were built by the start-up backfill.

interface Downloads {
  months: Array<{ month: string; schemaVersion: number; files: Array<{ name: string; rows: number }> }>;
}

let key = "";
test.beforeAll(() => {
  key = mintKey();
});

/** Rows of a bundle CSV (no quoted commas in this file). */
function csvRows(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trim().split("\r\n");
  const names = (head ?? "").split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [names[i] ?? String(i), v])));
}

test("each volatility page shows its forecast record, and the monthly bundles carry it", async ({ page, request }) => {
  test.setTimeout(180_000);
  const auth = { headers: { Authorization: `Bearer ${key}` } };
  const res = await request.get("/downloads/manifest.json", auth);
  expect(res.status()).toBe(200);
  const downloads = (await res.json()) as Downloads;
  const closed = downloads.months.filter((m) => m.schemaVersion >= 7);
  expect(closed.length).toBeGreaterThan(0);
  const bundleRows: Array<Record<string, string>> = [];
  for (const m of closed) {
    const file = m.files.find((f) => f.name === "volatility_forecast_record.csv");
    expect(file, `${m.month} lists the forecast record`).toBeDefined();
    const csv = await request.get(`/downloads/${m.month}/volatility_forecast_record.csv`, auth);
    expect(csv.status()).toBe(200);
    const rows = csvRows(await csv.text());
    expect(rows.length).toBe(file!.rows);
    bundleRows.push(...rows);
  }
  expect(bundleRows.length).toBeGreaterThan(0);

  const catalog = (await (await request.get("/v1/volatility", auth)).json()) as {
    data: { series: Array<{ ticker: string; slug: string; tenorsDays: number[] }> };
  };
  for (const series of catalog.data.series) {
    await test.step(series.ticker, async () => {
      expect((await page.goto(`/volatility/${series.slug}`))?.status()).toBe(200);
      const section = page.getByTestId("forecast-record");
      await expect(section.getByRole("heading", { name: "Forecast record" })).toBeVisible();
      for (const tau of series.tenorsDays) {
        const inBundles = bundleRows.filter((r) => r.ticker === series.ticker && r.tenor_days === String(tau));
        const row = section.locator(`[data-testid="forecast-record-table"] tr[data-tenor-days="${tau}"]`);
        // the page's record runs through the newest hour: every window the closed months' bundles list, and those since
        const windows = Number(await row.getAttribute("data-windows"));
        expect(windows).toBeGreaterThanOrEqual(inBundles.length);
        if (inBundles.length > 0) {
          expect(Number(await row.getAttribute("data-independent"))).toBeGreaterThan(0);
          const ratio = Number(await row.getAttribute("data-variance-ratio"));
          expect(ratio).toBeGreaterThan(0);
          expect(Number.isFinite(ratio)).toBe(true);
        }
      }
      // the chart: one dot per window starting at 00:00 UTC, carrying the bundle's numbers
      const frame = page.getByTestId("forecast-record-chart-frame");
      const count = Number(await frame.getAttribute("data-count"));
      expect(count).toBeGreaterThan(0);
      await frame.hover();
      const dots = page.locator('svg[data-testid="forecast-record-chart"] .chart-point');
      await expect(dots).toHaveCount(count);
      const daily = bundleRows.find((r) => r.ticker === series.ticker && r.window_start!.endsWith("T00:00:00.000000Z"));
      if (daily) {
        const dot = page.locator(
          `svg[data-testid="forecast-record-chart"] .chart-point[data-tenor-days="${daily.tenor_days}"][data-t="${daily.window_start!.replace(".000000Z", ".000Z")}"]`,
        );
        await expect(dot).toHaveAttribute("data-expected", String(Number(daily.expected_pts)));
        await expect(dot).toHaveAttribute("data-realized", String(Number(daily.realized_pts)));
      }
    });
  }
  await page.getByTestId("forecast-record").screenshot({ path: test.info().outputPath("forecast-record.png") });
});
