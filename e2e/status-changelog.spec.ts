import { expect, test, type APIRequestContext } from "@playwright/test";
import { mintKey } from "./support/mint-key";

// /status and /changelog are generated from the database: their facts must equal the API's.

let key = "";
test.beforeAll(() => {
  key = mintKey();
});

async function api<T>(request: APIRequestContext, path: string): Promise<T> {
  const res = await request.get(path, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status(), path).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

const ms = (iso: string) => Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`);

test("status: each index's and series' last computation equals the API's latest, with the last computed hour", async ({
  page,
  request,
}) => {
  await page.goto("/status");
  await expect(page.getByRole("heading", { level: 1, name: "Status" })).toBeVisible();
  const indices = await api<{ indices: Array<{ ticker: string; publicStatus: string }> }>(request, "/v1/indices");
  let newest = 0;
  for (const i of indices.indices) {
    const latest = await api<{ computedAt: string }>(request, `/v1/indices/${i.ticker}/latest`);
    const row = page.locator(`[data-testid="status-index"][data-ticker="${i.ticker}"]`);
    await expect(row).toHaveAttribute("data-last", latest.computedAt);
    await expect(row.getByTestId("freshness")).toHaveAttribute(
      "data-freshness",
      i.publicStatus === "active" ? /fresh|late|stale/ : "final",
    );
    newest = Math.max(newest, ms(latest.computedAt));
  }
  const series = await api<{ series: Array<{ ticker: string }> }>(request, "/v1/volatility");
  for (const s of series.series) {
    const latest = await api<{ tick: { computedAt: string } }>(request, `/v1/volatility/${s.ticker}/latest`);
    const row = page.locator(`[data-testid="status-series-row"][data-ticker="${s.ticker}"]`);
    expect(ms((await row.getAttribute("data-last")) ?? "")).toBe(ms(latest.tick.computedAt));
    newest = Math.max(newest, ms(latest.tick.computedAt));
  }
  const hour = (await page.getByTestId("last-computed-hour").getAttribute("data-value")) ?? "";
  expect(ms(hour)).toBeGreaterThanOrEqual(newest);
  // The demo feed is the venue in use: reading, with its last successful read at the last computed hour.
  const demo = page.locator('[data-testid="status-venue"][data-venue="demo"]');
  await expect(demo).toHaveAttribute("data-failing", "0");
  expect(ms((await demo.getAttribute("data-last-ok")) ?? "")).toBe(ms(hour));
  // Incidents are either listed or the page says there are none.
  expect(
    (await page.getByTestId("incident").count()) + (await page.getByTestId("no-incidents").count()),
  ).toBeGreaterThan(0);
});

test("changelog: a launch per index and series, index methodology versions, and restatements when there are any", async ({
  page,
  request,
}) => {
  await page.goto("/changelog");
  const indices = await api<{
    indices: Array<{ ticker: string; publicStatus: string; ceasedAt: string | null; resolvedAt: string | null }>;
  }>(request, "/v1/indices");
  for (const i of indices.indices) {
    await expect(
      page
        .locator(`[data-testid="change"][data-kind="catalog"][data-subject="${i.ticker}"]`)
        .filter({ hasText: "launched" }),
    ).toHaveCount(1);
    if (i.publicStatus !== "active") {
      const word = i.publicStatus === "resolved" ? "resolved" : "ceased";
      const entry = page
        .locator(`[data-testid="change"][data-kind="catalog"][data-subject="${i.ticker}"]`)
        .filter({ hasText: word });
      await expect(entry).toHaveCount(1);
      await expect(entry).toHaveAttribute("data-at", (i.resolvedAt ?? i.ceasedAt)!);
    }
  }
  const series = await api<{ series: Array<{ ticker: string; methodologyVersion?: string }> }>(
    request,
    "/v1/volatility",
  );
  for (const s of series.series) {
    await expect(
      page
        .locator(`[data-testid="change"][data-kind="catalog"][data-subject="${s.ticker}"]`)
        .filter({ hasText: "launched" }),
    ).toHaveCount(1);
  }
  await expect(page.locator('[data-testid="change"][data-kind="methodology"]').first()).toBeVisible();
  // Newest first.
  const times = await page.getByTestId("change").evaluateAll((els) => els.map((e) => e.getAttribute("data-at") ?? ""));
  expect([...times].sort().reverse()).toEqual(times);
});
