import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { pngFacts } from "./support/png";
import { mintInPortal, signInThroughOutbox, uniquePortalEmail } from "./support/portal-session";

// The keys page as a user trusts it: the copied state belongs to the secret on screen, each key is
// a card on a phone with its actions in reach, and the usage charts export as the plotted chart.
// Each test registers its own account, so it starts signed out.
test.use({ storageState: { cookies: [], origins: [] } });

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

test("the copied state belongs to one secret: a rotate or a second create shows the new key as not copied", async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signInThroughOutbox(page, uniquePortalEmail("e2e-copied"));
  const first = await mintInPortal(page, "copied state");
  const reveal = page.getByTestId("secret-reveal");
  await reveal.getByRole("button", { name: "Copy key" }).click();
  await expect(reveal).toContainText("The key is on your clipboard.");
  expect(await clipboard(page)).toBe(first);

  // Rotate without closing the panel: the new secret is shown, nothing says it was copied.
  await page.getByRole("button", { name: /^Rotate copied state/ }).click();
  await page
    .getByRole("dialog", { name: /Rotate/ })
    .getByRole("button", { name: "Rotate key" })
    .click();
  const field = page.getByTestId("new-secret");
  await expect(field).not.toHaveValue(first);
  const rotated = await field.inputValue();
  await expect(reveal).not.toContainText("on your clipboard");
  await expect(reveal.getByRole("button", { name: "Copy key" })).toBeVisible();
  expect(await clipboard(page), "the clipboard still holds the previous key").toBe(first);
  await reveal.getByRole("button", { name: "Copy key" }).click();
  await expect(reveal).toContainText("The key is on your clipboard.");
  expect(await clipboard(page)).toBe(rotated);

  // A second create without closing the panel: the same.
  const second = await mintInPortal(page, "second");
  expect(second).not.toBe(rotated);
  await expect(reveal).not.toContainText("on your clipboard");
  await expect(reveal.getByRole("button", { name: "Copy key" })).toBeVisible();
  expect(await clipboard(page)).toBe(rotated);
});

test("at 390 px each key is a card with Usage, Rotate and Revoke in reach, and the Copy button covers no request text", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signInThroughOutbox(page, uniquePortalEmail("e2e-cards"));
  await mintInPortal(page, "a key with a rather long descriptive name");
  await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
  await mintInPortal(page, "second");
  await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByTestId("keys-manager")).toHaveAttribute("data-ready", "true");

  const cards = page.getByTestId("key-card");
  await expect(cards).toHaveCount(2);
  for (const card of await cards.all()) {
    const box = (await card.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    for (const name of [/^Usage of /, /^Rotate /, /^Revoke /]) {
      const action = card.getByRole(name.source.startsWith("^Usage") ? "link" : "button", { name });
      await expect(action).toBeVisible();
      await action.scrollIntoViewIfNeeded();
      const a = (await action.boundingBox())!;
      expect(a.x, `${name} starts on screen`).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width, `${name} ends on screen`).toBeLessThanOrEqual(390);
      // Nothing covers it: the point at its centre is the action itself.
      const onTop = await action.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
      });
      expect(onTop, `${name} is not covered`).toBe(true);
    }
  }
  // No table scrolling sideways on a phone.
  await expect(page.getByTestId("keys-table-scroll")).toBeHidden();

  // The first-request snippet: no line of its text lies under the Copy button.
  const request = page.getByTestId("first-request");
  await request.scrollIntoViewIfNeeded();
  const copy = (await page.getByRole("button", { name: "Copy the first request" }).boundingBox())!;
  const lines = await request.evaluate((pre) => {
    const range = document.createRange();
    range.selectNodeContents(pre);
    return [...range.getClientRects()].map((r) => ({
      left: r.left,
      right: r.right,
      top: r.top,
      bottom: r.bottom,
    }));
  });
  expect(lines.length).toBeGreaterThan(0);
  for (const r of lines) {
    const overlaps =
      r.left < copy.x + copy.width && r.right > copy.x && r.top < copy.y + copy.height && r.bottom > copy.y;
    expect(overlaps, `text at ${JSON.stringify(r)} under the Copy button ${JSON.stringify(copy)}`).toBe(false);
  }
  const pre = (await request.boundingBox())!;
  expect(
    await request.evaluate((el) => el.scrollWidth <= el.clientWidth),
    "the request wraps instead of scrolling under the button",
  ).toBe(true);
  expect(pre.x + pre.width).toBeLessThanOrEqual(390);
  await page.screenshot({
    path: test.info().outputPath("portal-cards-390.png"),
    fullPage: true,
  });
});

test("the usage charts' PNG is the plotted chart with its title, not a legend swatch", async ({ page, request }) => {
  test.setTimeout(120_000);
  await signInThroughOutbox(page, uniquePortalEmail("e2e-usage-png"));
  const key = await mintInPortal(page, "usage png");
  for (let i = 0; i < 4; i++)
    expect(
      (
        await request.get("/v1", {
          headers: { Authorization: `Bearer ${key}` },
        })
      ).status(),
    ).toBe(200);
  await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
  await page.getByRole("link", { name: /^Usage of usage png/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "usage png" })).toBeVisible({ timeout: 15_000 });
  await expect
    .poll(
      async () => {
        await page.reload();
        return Number(await page.getByTestId("usage-hourly").getAttribute("data-total"));
      },
      { timeout: 60_000, intervals: [500, 1000, 2000] },
    )
    .toBeGreaterThanOrEqual(4);
  const figure = page.getByTestId("usage-hourly");
  await expect(figure.locator(".recharts-bar-rectangle").first()).toBeAttached();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    figure.getByRole("button", { name: /^Download PNG of the chart/ }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("usage-hourly.png");
  const facts = await pngFacts(
    page.context().browser()!,
    readFileSync(await download.path()),
    [0x10, 0xb9, 0x81],
    2 * 28,
  );
  const plotted = (await figure.locator(".recharts-wrapper > svg.recharts-surface").boundingBox())!;
  // Twice the plotted chart's pixels plus the title strip, with the success bars' green in it.
  expect(facts.width).toBe(2 * Math.round(plotted.width));
  expect(facts.height).toBe(2 * (Math.round(plotted.height) + 28));
  expect(facts.colorPixels, "the success bars are drawn").toBeGreaterThan(50);
  expect(facts.titleInk, "the title is written").toBeGreaterThan(200);
});
