import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";

// Exports fit to publish: every chart PNG carries the attribution line, the series' name, the
// as-of time and a legend (drawn, and in the PNG's text chunks), at 1280 and 390 px, with no
// blank strip between the title lines and the plot; the term-structure CSV names the series and
// the as-of time; a count of values never reads as a year.

interface Png {
  width: number;
  height: number;
  text: Record<string, string>;
  bytes: Buffer;
}

/** The IHDR size and the tEXt chunks of a PNG. */
function readPng(bytes: Buffer): Png {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const text: Record<string, string> = {};
  let width = 0;
  let height = 0;
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    }
    if (type === "tEXt") {
      const zero = data.indexOf(0);
      text[data.toString("latin1", 0, zero)] = data.toString("latin1", zero + 1);
    }
    at += 12 + length;
  }
  return { width, height, text, bytes };
}

/** Rows of the image (device pixels): whether each has a pixel that is not near-white. */
async function inkedRows(page: Page, png: Buffer): Promise<boolean[]> {
  return page.evaluate(async (b64) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    const rows: boolean[] = [];
    for (let y = 0; y < bitmap.height; y++) {
      let ink = false;
      for (let x = 0; x < bitmap.width && !ink; x++) {
        const i = (y * bitmap.width + x) * 4;
        ink = data[i]! < 235 || data[i + 1]! < 235 || data[i + 2]! < 235;
      }
      rows.push(ink);
    }
    return rows;
  }, png.toString("base64"));
}

const longestBlank = (rows: boolean[], from: number, to: number) => {
  let best = 0;
  let run = 0;
  for (let y = from; y < to; y++) {
    run = rows[y] ? 0 : run + 1;
    best = Math.max(best, run);
  }
  return best;
};

async function downloadPng(page: Page, testId: string): Promise<Png> {
  const box = page.getByTestId(`${testId}-downloads`);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    box.getByRole("button", { name: /^Download PNG/ }).click(),
  ]);
  const bytes = readFileSync(await download.path());
  await test.info().attach(`${testId}.png`, { body: bytes, contentType: "image/png" });
  return readPng(bytes);
}

const CHARTS = [
  {
    path: "/indices/PMX-CRYPTO?range=90d&interval=1h",
    testId: "level-chart",
    series: /^PMX-CRYPTO: /,
    legend: ["Index level, hourly", "R: reconstitution"],
  },
  {
    path: "/volatility/fed-decision?range=90d",
    testId: "volatility-chart",
    series: /^PMV-FED: /,
    legend: ["Line: headline, points over", "Band: published uncertainty band", "Dashed: frozen-inception analytic"],
  },
  {
    path: "/volatility/fed-decision",
    testId: "term-chart",
    series: /^PMV-FED: /,
    legend: ["Headline tenor", "Other tenors"],
  },
];

for (const width of [1280, 390]) {
  test(`every chart PNG at ${width} px: attribution, series, as-of time and legend, no blank strip above the plot`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width, height: 900 });
    for (const chart of CHARTS) {
      await test.step(chart.testId, async () => {
        await page.goto(chart.path);
        const attribution = ((await page.getByTestId("attribution").textContent()) ?? "").trim();
        expect(attribution.length).toBeGreaterThan(10);
        const png = await downloadPng(page, chart.testId);
        expect(png.text.Copyright).toBe(attribution);
        const [, series] = png.text.Title!.split(" | ");
        expect(series).toMatch(chart.series);
        expect(png.text["Creation Time"]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
        for (const item of chart.legend) expect(png.text.Description).toContain(item);
        // twice the chart's CSS width: the texts wrap into it, the image is not widened or squeezed
        const frame = (await page.getByTestId(`${chart.testId}-frame`).boundingBox())!;
        expect(Math.abs(png.width - 2 * Math.round(frame.width))).toBeLessThanOrEqual(4);

        const rows = await inkedRows(page, png.bytes);
        // The header (title, series, as-of) and then the plot: no blank strip over 30 CSS px in
        // the top half (the page's HTML legend above the plot used to leave one).
        expect(
          longestBlank(rows, 0, Math.round(png.height / 2)),
          `${chart.testId}: blank rows above the plot`,
        ).toBeLessThan(60);
        // the attribution line is drawn at the bottom
        expect(rows.slice(-40).some(Boolean), `${chart.testId}: no attribution drawn at the bottom`).toBe(true);
      });
    }
  });
}

test("the term-structure CSV names the series and the as-of time of the computation shown", async ({ page }) => {
  await page.goto("/volatility/fed-decision");
  const computedAt = (await page.locator("[data-computed-at]").first().getAttribute("data-computed-at"))!;
  const [csv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("term-chart-downloads").getByRole("button", { name: /CSV/ }).click(),
  ]);
  const lines = readFileSync(await csv.path(), "utf8")
    .trim()
    .split("\r\n");
  expect(lines[0]).toBe("ticker,computedAt,tenorDays,pts,headline");
  expect(lines.length).toBeGreaterThan(1);
  for (const line of lines.slice(1)) expect(line.startsWith(`PMV-FED,${computedAt},`)).toBe(true);
});

test("a count of published values reads as a count, never as a year", async ({ page }) => {
  await page.goto("/volatility/fed-decision?range=90d");
  const count = Number(await page.getByTestId("volatility-figure").getAttribute("data-count"));
  test.skip(count < 1000, "fewer than 1,000 values in the window");
  const label =
    (await page
      .locator('svg[data-testid="volatility-chart"], [data-testid="volatility-chart-downloads"] button')
      .first()
      .getAttribute("aria-label")) ?? "";
  expect(label).toContain(count.toLocaleString("en-US"));
  await expect(page.getByTestId("volatility-figure").locator("figcaption")).toContainText(
    `${count.toLocaleString("en-US")} published values`,
  );
  await expect(page.getByTestId("volatility-figure")).not.toContainText(new RegExp(`\\b${count} published values`));
});
