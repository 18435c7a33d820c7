import { expect, test } from "@playwright/test";

test("the home page renders with navigation and the attribution footer", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const label of ["Indices", "Volatility", "Docs", "Portal"]) {
    await expect(nav.getByRole("link", { name: label })).toBeVisible();
  }
  await expect(page.getByTestId("attribution")).toContainText("Data:");
  await expect(page.getByRole("link", { name: "Terms" })).toHaveAttribute("href", "/terms");
  await expect(page.getByRole("link", { name: "License" })).toHaveAttribute("href", "/license");
});

test("healthz reports the embedded database as reachable", async ({ request }) => {
  const res = await request.get("/healthz");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.database.reachable).toBe(true);
  expect(body.database.serverVersion).toMatch(/^\d+/);
});
