import { randomUUID } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { chromium, type Browser } from "@playwright/test";
import { tempDataDir } from "../tests/integration/faults/support";
import { startServer } from "../tests/integration/support/server";
import { waitFor } from "../tests/support/wait-for";
import { benchSettings } from "./lib/bench-settings";

// `npm run bench:pages`: how soon the chart pages draw, on the production build with the embedded
// database and the demo market, in Chromium (/usr/bin/chromium) at 1280 px. For each page: its
// HTML and script bytes, first contentful paint, the first chart drawing (the server's SVG that
// arrives with the HTML), the interactive chart that replaces it, and the main thread's long tasks
// before it; medians of five loads after a warm-up. Prints figures; it is not a test (the pages'
// functional checks are in e2e/charts.spec.ts). BENCH_ONLY=volatility,PMX-ELEC runs only the pages
// whose path contains one of the words.

const LOADS = 5;
const VIEWPORT = { width: 1280, height: 900 };

interface Page {
  path: string;
  chart: "level-chart" | "volatility-chart";
}

/** Records, in ms since navigation start, the first drawing and the interactive chart of `chart`. */
const RECORD = (chart: string) => {
  const w = window as unknown as {
    __first?: number;
    __interactive?: number;
    __longTasks?: Array<{ start: number; duration: number }>;
  };
  w.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks!.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    // no long-task timing in this browser: the figure is left out
  }
  const check = () => {
    const now = performance.now();
    if (
      w.__first === undefined &&
      document.querySelector(
        `[data-testid="${chart}-frame"] .chart-line, svg[data-testid="${chart}"] .recharts-line-curve`,
      )
    )
      w.__first = now;
    if (w.__interactive === undefined && document.querySelector(`svg[data-testid="${chart}"] .recharts-line-curve`)) {
      w.__interactive = now;
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true });
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** The chart pages measured: two index pages and every volatility series at 30 and 90 days. */
async function pages(browser: Browser, base: string): Promise<Page[]> {
  const catalog = await browser.newPage();
  await catalog.goto(`${base}/volatility`);
  const slugs = await catalog
    .locator('[data-testid="volatility-row"] a[href^="/volatility/"]')
    .evaluateAll((as) => [
      ...new Set(as.map((a) => (a.getAttribute("href") ?? "").split("?")[0]!.replace("/volatility/", ""))),
    ]);
  await catalog.close();
  const all: Page[] = [
    { path: "/indices/PMX-ELEC?range=90d&interval=1h", chart: "level-chart" },
    { path: "/indices/PMX-CRYPTO?range=30d&interval=1d", chart: "level-chart" },
    ...slugs.flatMap((slug) =>
      (["30d", "90d"] as const).map((range) => ({
        path: `/volatility/${slug}?range=${range}`,
        chart: "volatility-chart" as const,
      })),
    ),
  ];
  const only = benchSettings.only;
  return only.length === 0 ? all : all.filter((p) => only.some((w) => p.path.includes(w)));
}

async function measure(browser: Browser, base: string, { path, chart }: Page): Promise<string> {
  const res = await fetch(`${base}${path}`);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  const html = Buffer.byteLength(await res.text());
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.addInitScript(RECORD, chart);
    const interactive = page.locator(`svg[data-testid="${chart}"] .recharts-line-curve`).first();
    // warm-up: compiled code and data caches, as for any visitor after the first
    await page.goto(`${base}${path}`);
    await interactive.waitFor({ state: "attached", timeout: 60_000 });
    const fcp: number[] = [];
    const first: number[] = [];
    const ready: number[] = [];
    const blocked: number[] = [];
    let scripts = 0;
    for (let i = 0; i < LOADS; i++) {
      await page.goto(`${base}${path}`);
      await interactive.waitFor({ state: "attached", timeout: 60_000 });
      const t = await page.evaluate(() => {
        const w = window as unknown as {
          __first?: number;
          __interactive?: number;
          __longTasks?: Array<{ start: number; duration: number }>;
        };
        const until = w.__interactive ?? Number.POSITIVE_INFINITY;
        const js = performance
          .getEntriesByType("resource")
          .filter((e) => (e as PerformanceResourceTiming).initiatorType === "script" || e.name.endsWith(".js"))
          .reduce((n, e) => n + ((e as PerformanceResourceTiming).decodedBodySize || 0), 0);
        return {
          fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
          first: w.__first ?? Number.NaN,
          interactive: w.__interactive ?? Number.NaN,
          blocked: (w.__longTasks ?? []).filter((l) => l.start < until).reduce((n, l) => n + l.duration, 0),
          js,
        };
      });
      fcp.push(t.fcp);
      first.push(t.first);
      ready.push(t.interactive);
      blocked.push(t.blocked);
      scripts = t.js;
    }
    return (
      `${path}: ${kb(html)} HTML, ${kb(scripts)} script; first contentful paint ${median(fcp).toFixed(0)} ms; ` +
      `first chart drawing ${median(first).toFixed(0)} ms (${list(first)}); interactive chart ${median(ready).toFixed(0)} ms ` +
      `(${list(ready)}); long tasks before it ${median(blocked).toFixed(0)} ms`
    );
  } finally {
    await context.close();
  }
}

async function main() {
  const build = spawnSync(process.execPath, ["-e", "import('./scripts/lib/build.mjs').then(m => m.ensureBuild())"], {
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("build failed");
  const dataDir = tempDataDir("bench-pages");
  const server = await startServer(
    {
      DATABASE_URL: "",
      REDIS_URL: "",
      DATA_DIR: dataDir,
      DEMO_MARKET: "1",
      ENGINE_SCHEDULER: "0",
      AUTH_SECRET: randomUUID(),
    },
    600_000,
  );
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  try {
    // The start-up work (backfill, bundle builds) ends first: it would share the CPU with the pages.
    await waitFor(
      "the server's start-up work to end",
      async () => {
        const body = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as { backfill: { pending: boolean } };
        return body.backfill.pending === false;
      },
      { timeoutMs: 600_000, intervalMs: 500 },
    );
    const load = () =>
      os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(" ");
    console.log(`bench:pages: ${VIEWPORT.width} px, median of ${LOADS} loads after a warm-up (load average ${load()})`);
    for (const page of await pages(browser, server.baseUrl))
      console.log(`  ${await measure(browser, server.baseUrl, page)}`);
    console.log(`load average now ${load()}`);
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: Error) => {
    console.error(`bench:pages: ${error.stack ?? error.message}`);
    process.exit(1);
  });
