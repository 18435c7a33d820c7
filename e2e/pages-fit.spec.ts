import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { pngFacts } from "./support/png";

// What a demanding reader trips on: chart PNGs that are the plotted chart, log-scale bounds,
// tables on a phone, a page that reaches network idle, docs pages' weight, and the files every
// site serves (favicon, robots.txt, sitemap.xml).

const LINE: [number, number, number] = [0x2f, 0x5b, 0xea];

test("the volatility and index charts' PNGs are the plotted chart, titled with the series, the range and the scale", async ({
  page,
  browser,
}) => {
  for (const [path, testId] of [
    ["/volatility/fed-decision?range=30d", "volatility-chart"],
    ["/indices/PMX-CRYPTO?range=30d&interval=1d", "level-chart"],
  ] as const) {
    await page.goto(path);
    const frame = page.getByTestId(`${testId}-frame`);
    await frame.hover();
    const svg = frame.locator(".recharts-wrapper > svg.recharts-surface");
    await expect(svg.locator(".recharts-line-curve").first()).toBeAttached();
    if (testId === "level-chart") {
      await page.getByTestId("toggle-log-scale").check();
      await expect(page.locator('svg[data-testid="level-chart"]')).toHaveAttribute("data-y-scale", "log");
    }
    const button = page.getByTestId(`${testId}-downloads`).getByRole("button", { name: /^Download PNG of the chart/ });
    const name = (await button.getAttribute("aria-label")) ?? "";
    expect(name).toMatch(/last 30 days/);
    if (testId === "level-chart") expect(name).toContain("log scale");
    const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
    const facts = await pngFacts(browser, readFileSync(await download.path()), LINE, 2 * 40);
    const box = (await svg.boundingBox())!;
    expect(facts.width, path).toBe(2 * Math.round(box.width));
    expect(facts.height, path).toBeGreaterThan(2 * Math.round(box.height));
    expect(facts.colorPixels, `${path}: the headline line is drawn`).toBeGreaterThan(300);
    expect(facts.titleInk, `${path}: the title is written`).toBeGreaterThan(200);
  }
});

test("on a log scale the y axis labels its bounds: the lowest and highest ticks bracket every level", async ({
  page,
}) => {
  await page.goto("/indices/PMX-CRYPTO?range=90d&interval=1d");
  await page.getByTestId("level-chart-frame").hover();
  await page.getByTestId("toggle-log-scale").check();
  const chart = page.locator('svg[data-testid="level-chart"]');
  await expect(chart).toHaveAttribute("data-y-scale", "log");
  await expect(chart.locator(".chart-point").first()).toBeAttached();
  const tickText = chart.locator(".recharts-yAxis-tick-labels text");
  await expect.poll(() => tickText.count()).toBeGreaterThanOrEqual(4);
  const levels = (
    await chart
      .locator(".chart-point, .chart-latest-point")
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))))
  ).filter(Number.isFinite);
  expect(levels.length).toBeGreaterThan(5);
  const ticks = await tickText.evaluateAll((els) =>
    els.map((e) => ({
      value: Number(e.textContent),
      y: e.getBoundingClientRect().top,
    })),
  );
  expect(ticks.length).toBeGreaterThanOrEqual(4);
  const values = ticks.map((t) => t.value);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  expect(lo, "the lowest tick is at or under the lowest level").toBeLessThanOrEqual(Math.min(...levels));
  expect(hi, "the highest tick is at or over the highest level").toBeGreaterThanOrEqual(Math.max(...levels));
  // The bounds are the axis' ends: the lowest tick at the bottom of the plot, the highest at the top.
  const plot = (await chart.locator(".recharts-cartesian-grid").boundingBox())!;
  const bottom = ticks.find((t) => t.value === lo)!;
  const top = ticks.find((t) => t.value === hi)!;
  expect(Math.abs(bottom.y + 7 - (plot.y + plot.height))).toBeLessThanOrEqual(12);
  expect(Math.abs(top.y + 7 - plot.y)).toBeLessThanOrEqual(12);
});

test("at 390 px the tables on /indices and /status that scroll sideways say so", async ({ page }) => {
  for (const [width, path] of [
    [390, "/indices"],
    [390, "/status"],
    [1280, "/indices"],
  ] as const) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const regions = page.locator('[role="region"]:has(> table)');
    let scrolling = 0;
    for (const region of await regions.all()) {
      const overflows = await region.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
      const hint = region.getByTestId("scroll-hint");
      if (overflows) {
        scrolling++;
        await expect(hint, `${path} at ${width}: a table cut at the edge says it scrolls`).toBeVisible();
        await expect(hint).toContainText(/scroll/i);
        // Scrolled to its end, the hint has done its job.
        await region.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
        await expect(hint).toBeHidden();
        await region.evaluate((el) => el.scrollTo({ left: 0 }));
      } else {
        await expect(hint).toHaveCount(0);
      }
    }
    if (width === 390) expect(scrolling, `${path}: a table is wider than a phone`).toBeGreaterThan(0);
    else expect(scrolling, `${path}: every table fits at ${width}`).toBe(0);
  }
});

test("/status reaches network idle: no prefetch of /status.json left pending", async ({ page }) => {
  const rsc: string[] = [];
  page.on("request", (r) => {
    if (/\/status\.json\?_rsc=/.test(r.url())) rsc.push(r.url());
  });
  await page.goto("/status", { waitUntil: "networkidle", timeout: 20_000 });
  const link = page.getByRole("link", { name: "/status.json" });
  await link.hover();
  await page.waitForLoadState("networkidle", { timeout: 10_000 });
  expect(rsc, "a JSON document is not prefetched as a page").toEqual([]);
  const [json] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/status.json")), link.click()]);
  expect(json.status()).toBe(200);
});

test("docs pages do not carry the search index; it loads when search is opened", async ({ page, request }) => {
  const index = (await (await request.get("/docs/search-index.json")).json()) as Array<{ h: string; x: string }>;
  expect(index.length).toBeGreaterThan(50);
  for (const path of ["/docs", "/docs/quickstart", "/docs/errors", "/docs/methodology", "/docs/api/index-history"]) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    const html = await res.text();
    // An entry of the index as the page would serialize it: its href next to its text.
    // (quotes escaped or not: the RSC payload sits in a script string)
    expect(html, `${path} inlines the search index`).not.toMatch(/\\?"h\\?":\\?"\/docs\/errors#rate_limited/);
    test.info().annotations.push({ type: "html bytes", description: `${path}: ${Buffer.byteLength(html)}` });
  }
  const indexRequests: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/docs/search-index")) indexRequests.push(r.url());
  });
  await page.goto("/docs/quickstart");
  await expect(page.locator('[role="search"][data-hydrated]')).toBeAttached();
  expect(indexRequests, "no index before search is opened").toEqual([]);
  const box = page.getByRole("combobox", { name: "Search the docs" });
  await box.focus();
  await box.fill("retry-after");
  const results = page.getByRole("listbox", { name: "Search results" });
  await expect(results.getByRole("option").first()).toBeVisible();
  expect(indexRequests.length).toBe(1);
});

test("favicon.ico, robots.txt and sitemap.xml are served; the sitemap lists the public pages, each answering 200", async ({
  request,
}) => {
  const icon = await request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  expect([...(await icon.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);

  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  const text = await robots.text();
  expect(text).toMatch(/^User-Agent: \*$/im);
  expect(text).toMatch(/^Disallow: \/portal/im);
  const sitemapUrl = /^Sitemap: (\S+)$/im.exec(text)?.[1] ?? "";
  expect(new URL(sitemapUrl).pathname).toBe("/sitemap.xml");

  const sitemap = await request.get("/sitemap.xml");
  expect(sitemap.status()).toBe(200);
  const locs = [...(await sitemap.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]!).pathname);
  for (const path of [
    "/",
    "/indices",
    "/indices/PMX-ELEC",
    "/volatility",
    "/volatility/fed-decision",
    "/docs",
    "/docs/errors",
    "/status",
    "/changelog",
    "/license",
    "/terms",
  ]) {
    expect(locs, path).toContain(path);
  }
  expect(locs.some((p) => p.startsWith("/portal") || p.startsWith("/operator") || p.startsWith("/dev"))).toBe(false);
  for (const path of locs) expect((await request.get(path)).status(), path).toBe(200);
});

test("the changelog and incidents are Atom feeds, linked from their pages, with the pages' entries", async ({
  page,
  request,
}) => {
  for (const [path, feedPath, items] of [
    ["/changelog", "/changelog.atom", '[data-testid="change"]'],
    ["/status/history", "/status/incidents.atom", '[data-testid="history-incident"]'],
    ["/status", "/status/incidents.atom", null],
  ] as const) {
    await page.goto(path);
    await expect(page.locator(`link[rel="alternate"][type="application/atom+xml"]`)).toHaveAttribute(
      "href",
      new RegExp(`${feedPath.replace(".", "\\.")}$`),
    );
    await expect(page.getByRole("link", { name: /Atom feed/ })).toHaveAttribute("href", feedPath);
    const res = await request.get(feedPath);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("application/atom+xml");
    const xml = await res.text();
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, "application/xml");
      return {
        error: doc.getElementsByTagName("parsererror").length,
        ns: doc.documentElement.namespaceURI,
        entries: [...doc.getElementsByTagName("entry")].map((e) => ({
          id: e.getElementsByTagName("id")[0]?.textContent ?? "",
          updated: e.getElementsByTagName("updated")[0]?.textContent ?? "",
        })),
      };
    }, xml);
    expect(parsed.error, `${feedPath} is well-formed XML`).toBe(0);
    expect(parsed.ns).toBe("http://www.w3.org/2005/Atom");
    for (const e of parsed.entries) expect(e.updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(new Set(parsed.entries.map((e) => e.id)).size, "entry ids are unique").toBe(parsed.entries.length);
    if (items)
      expect(parsed.entries.length, `${feedPath} has the page's entries`).toBe(await page.locator(items).count());
  }
});

test("/llms.txt is the plain-text guide for agents: base URL, auth, endpoints, limits, error codes and the MCP address", async ({
  request,
  baseURL,
}) => {
  const res = await request.get("/llms.txt");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("text/plain");
  const text = await res.text();
  expect(text).toMatch(/^# PM Benchmarks\n/);
  expect(text).toContain(`Base URL: ${baseURL}/v1`);
  expect(text).toContain("Authorization: Bearer <API_KEY>");
  expect(text).toContain(`${baseURL}/mcp`);
  for (const path of ["/v1/indices/{ticker}/history", "/v1/volatility/{ticker}/latest", "/v1/downloads"])
    expect(text).toContain(`### GET ${path}`);
  for (const code of ["invalid_api_key", "rate_limited", "not_found", "invalid_window"])
    expect(text).toContain(`\`${code}\``);
  expect(text).toMatch(/\d+ requests per minute and \d+ per day/);
});
