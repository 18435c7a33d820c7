import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { mintKey } from "./support/mint-key";

// Chart correctness: the latest level ends every index chart, a ceased index opens on its
// levels, reconstitution markers never overlap, the log-scale toggle, CSV and PNG downloads of
// exactly what is plotted, and tooltips with the page's decimals.

let key = "";
test.beforeAll(() => {
  key = mintKey();
});

async function api<T>(request: APIRequestContext, path: string): Promise<T> {
  const res = await request.get(path, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status(), path).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

const ACTIVE = ["PMX-CRYPTO", "PMX-ELEC", "PMX-MACRO"];

test("the index chart's last point is the latest level at both intervals", async ({ page, request }) => {
  for (const ticker of ACTIVE) {
    const latest = await api<{ indexLevel: string; computedAt: string }>(request, `/v1/indices/${ticker}/latest`);
    for (const interval of ["1d", "1h"]) {
      await page.goto(`/indices/${ticker}?range=7d&interval=${interval}`);
      const last = page.locator('svg[data-testid="level-chart"] :is(.chart-point, .chart-latest-point)').last();
      await expect(last).toHaveAttribute("data-value", latest.indexLevel);
      await expect(last).toHaveAttribute("data-t", latest.computedAt);
    }
  }
});

test("a ceased index opens on a window that shows its levels, ending at its last level", async ({ page, request }) => {
  const catalog = await api<{ indices: Array<{ ticker: string; publicStatus: string }> }>(request, "/v1/indices");
  const ceased = catalog.indices.find((i) => i.publicStatus !== "active");
  test.skip(!ceased, "no ceased or resolved index in this catalog");
  const latest = await api<{ indexLevel: string; computedAt: string }>(request, `/v1/indices/${ceased!.ticker}/latest`);
  await page.goto(`/indices/${ceased!.ticker}`);
  const figure = page.getByTestId("level-figure");
  expect(Number(await figure.getAttribute("data-count"))).toBeGreaterThan(0);
  const end = (await figure.getAttribute("data-end")) ?? "";
  expect(Date.parse(end) - Date.parse(latest.computedAt)).toBeLessThanOrEqual(1000);
  await expect(
    page.locator('svg[data-testid="level-chart"] :is(.chart-point, .chart-latest-point)').last(),
  ).toHaveAttribute("data-value", latest.indexLevel);
});

test("reconstitution markers never overlap, even at 90 days on a phone, and can be hidden", async ({ page }) => {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/indices/PMX-ELEC?range=90d&interval=1h");
    const box = page.getByTestId("level-chart-box");
    await expect(page.locator('svg[data-testid="level-chart"] .recharts-line-curve')).toBeAttached();
    const events = Number(await box.getAttribute("data-events"));
    test.skip(events === 0, "no reconstitutions in the window");
    // The markers' labels: "R" for one reconstitution, "R×n" for a group (recharts draws them in its label layer).
    const labels = page.locator('svg[data-testid="level-chart"] text').filter({ hasText: /^R(×\d+)?$/ });
    await expect.poll(() => labels.count()).toBeGreaterThan(0);
    const shown = (await labels.allTextContents()).reduce((n, t) => n + (t === "R" ? 1 : Number(t.slice(2))), 0);
    expect(shown, "every reconstitution in the window is in one marker").toBe(events);
    const boxes = (
      await labels.evaluateAll((els) =>
        els.map((e) => e.getBoundingClientRect()).map((r) => ({ l: r.left, r: r.right })),
      )
    ).sort((a, b) => a.l - b.l);
    for (let i = 1; i < boxes.length; i++)
      expect(boxes[i]!.l, `label ${i} overlaps the one before at ${width} px`).toBeGreaterThanOrEqual(boxes[i - 1]!.r);
    expect(boxes.length).toBeLessThanOrEqual(Number(await box.getAttribute("data-event-groups")));
    await page.getByTestId("toggle-reconstitutions").uncheck();
    await expect(page.locator(".reconstitution-mark")).toHaveCount(0);
    await page.getByTestId("toggle-reconstitutions").check();
    await expect(page.locator(".reconstitution-mark").first()).toBeAttached();
  }
});

test("the log-scale toggle redraws the index chart on a log axis", async ({ page }) => {
  await page.goto("/indices/PMX-CRYPTO?range=30d&interval=1d");
  const chart = page.locator('svg[data-testid="level-chart"]');
  await expect(chart).toHaveAttribute("data-y-scale", "linear");
  await page.getByTestId("toggle-log-scale").check();
  await expect(chart).toHaveAttribute("data-y-scale", "log");
  await expect(page.locator('svg[data-testid="level-chart"] .chart-point').first()).toBeAttached();
});

test("CSV of the plotted series and PNG of the chart, from the index, volatility and term-structure charts", async ({
  page,
  request,
}) => {
  // The chart library's code is held back until the PNG button was clicked: a reader who asks
  // for the PNG before the interactive chart is drawn gets it once it is, not an error.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let heldChunks = 0;
  await page.route("**/_next/static/chunks/*.js", async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    if (body.includes("recharts-cartesian-grid")) {
      heldChunks += 1;
      await held;
    }
    await route.fulfill({ response, body });
  });
  await page.goto("/indices/PMX-MACRO?range=7d&interval=1d");
  const figure = page.getByTestId("level-figure");
  const start = (await figure.getAttribute("data-start")) ?? "";
  const end = (await figure.getAttribute("data-end")) ?? "";
  const history = await api<{ points: Array<{ t: string; indexLevel: string }> }>(
    request,
    `/v1/indices/PMX-MACRO/history?interval=1d&start=${start}&end=${end}`,
  );
  const latest = await api<{ indexLevel: string; computedAt: string }>(request, "/v1/indices/PMX-MACRO/latest");

  const [csv] = await Promise.all([
    page.waitForEvent("download"),
    page
      .getByRole("button", { name: /^Download CSV of the plotted series/ })
      .first()
      .click(),
  ]);
  expect(csv.suggestedFilename()).toBe("PMX-MACRO-7d-1d.csv");
  const lines = readFileSync(await csv.path(), "utf8")
    .trim()
    .split("\r\n");
  expect(lines[0]).toBe("t,indexLevel,kind");
  const expected = history.points.map((p) => `${p.t},${p.indexLevel},fixing`);
  if (history.points.at(-1)?.t !== latest.computedAt) expected.push(`${latest.computedAt},${latest.indexLevel},latest`);
  expect(lines.slice(1)).toEqual(expected);

  await expect(page.locator('[data-testid="level-chart-frame"] svg.recharts-surface')).toHaveCount(0);
  const pngDownload = page.waitForEvent("download");
  await page
    .getByRole("button", { name: /^Download PNG of the chart/ })
    .first()
    .click();
  await expect.poll(() => heldChunks).toBeGreaterThan(0);
  release();
  const png = await pngDownload;
  expect(png.suggestedFilename()).toBe("PMX-MACRO-7d-1d.png");
  const bytes = readFileSync(await png.path());
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(bytes.length).toBeGreaterThan(5000);

  await page.goto("/volatility/fed-decision?range=7d");
  const vfig = page.getByTestId("volatility-figure");
  const vstart = (await vfig.getAttribute("data-start")) ?? "";
  const vh = await api<{
    points: Array<{ t: string; headlinePts: number; bandLoPts: number; bandHiPts: number; status: string }>;
  }>(request, `/v1/volatility/PMV-FED/history?start=${vstart}&limit=5000`);
  const [vcsv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("volatility-chart-downloads").getByRole("button", { name: /CSV/ }).click(),
  ]);
  const vlines = readFileSync(await vcsv.path(), "utf8")
    .trim()
    .split("\r\n");
  expect(vlines[0]).toBe("t,headlinePts,bandLoPts,bandHiPts,cfHeadlinePts,status,basis");
  expect(vlines.slice(1).map((l) => l.split(",").slice(0, 4).join(","))).toEqual(
    [...vh.points].reverse().map((p) => [p.t, p.headlinePts, p.bandLoPts, p.bandHiPts].join(",")),
  );
  // The term-structure chart has its own downloads.
  const [tcsv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("term-chart-downloads").getByRole("button", { name: /CSV/ }).click(),
  ]);
  expect(readFileSync(await tcsv.path(), "utf8").split("\r\n")[0]).toBe("ticker,computedAt,tenorDays,pts,headline");
});

test("tooltips use the page's decimals: 8 for levels, 6 for volatility points", async ({ page }) => {
  await page.goto("/indices/PMX-ELEC?range=7d&interval=1d");
  await page.locator('svg[data-testid="level-chart"] .chart-point').last().hover({ force: true });
  await expect(page.getByTestId("chart-tooltip").locator("p").first()).toHaveText(/^\d+\.\d{8}$/);

  await page.goto("/volatility/fed-decision?range=7d");
  await page.locator('svg[data-testid="volatility-chart"] .chart-point').last().hover({ force: true });
  const tip = page.getByTestId("chart-tooltip");
  await expect(tip).toContainText(/^\d+\.\d{6} pts over/);
  await expect(tip).toContainText(/Band \d+\.\d{6} to \d+\.\d{6}/);
});

// The chart pages' weight and drawing order; how soon they draw is a figure of `npm run bench:pages`.
const HTML_LIMIT = 300_000;

/** Records the order in which the page showed the server's drawing of its chart and the interactive chart. */
const RECORD_DRAWS = () => {
  const chart = location.pathname.startsWith("/indices/") ? "level-chart" : "volatility-chart";
  const w = window as unknown as { __draws?: string[] };
  w.__draws = [];
  const observer = new MutationObserver(() => {
    const server = document.querySelector(`[data-testid="${chart}-frame"] .chart-line`);
    const interactive = document.querySelector(`svg[data-testid="${chart}"] .recharts-line-curve`);
    if (server && !w.__draws!.includes("server")) w.__draws!.push("server");
    if (interactive) {
      w.__draws!.push("interactive");
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
};

test("chart pages: under 300 KB of HTML, the first chart drawn in the HTML, then replaced by the interactive chart", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/volatility");
  const slugs = await page
    .locator('[data-testid="volatility-row"] a[href^="/volatility/"]')
    .evaluateAll((as) => [
      ...new Set(as.map((a) => (a.getAttribute("href") ?? "").split("?")[0]!.replace("/volatility/", ""))),
    ]);
  expect(slugs.length).toBeGreaterThanOrEqual(4);
  const pages = [
    { path: "/indices/PMX-ELEC?range=90d&interval=1h", chart: "level-chart" },
    { path: "/indices/PMX-CRYPTO?range=30d&interval=1d", chart: "level-chart" },
    ...slugs.flatMap((slug) =>
      ["30d", "90d"].map((range) => ({ path: `/volatility/${slug}?range=${range}`, chart: "volatility-chart" })),
    ),
  ];
  await page.addInitScript(RECORD_DRAWS);
  for (const { path, chart } of pages) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    const html = await res.text();
    expect(Buffer.byteLength(html), `${path}: bytes of HTML`).toBeLessThan(HTML_LIMIT);
    // The first drawing is in the HTML: lines a browser paints without running any script.
    expect(html, path).toMatch(new RegExp(`data-testid="${chart}-frame"[\\s\\S]*class="chart-line`));

    await page.goto(path);
    await expect(page.locator(`svg[data-testid="${chart}"] .recharts-line-curve`).first()).toBeAttached({
      timeout: 30_000,
    });
    const draws = await page.evaluate(() => (window as unknown as { __draws?: string[] }).__draws ?? []);
    expect(draws, `${path}: the server's drawing shown before the interactive chart`).toEqual([
      "server",
      "interactive",
    ]);
  }
});
