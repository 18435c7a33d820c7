import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { mintInPortal, sidewaysOverflow, signInThroughOutbox, uniquePortalEmail } from "./support/portal-session";

// The portal at a phone's and a laptop's width, the one-click first request, bundle downloads
// with the session (metered on the account's key), and the commercial licence request.
// Each test registers its own account, so it starts signed out (not in the setup project's state).
test.use({ storageState: { cookies: [], origins: [] } });

test("the keys page fits 390 and 1280 px: no sideways scroll, Revoke inside its card, Create key disabled at 3 of 3", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInThroughOutbox(page, uniquePortalEmail("e2e-fit"));
  for (const name of ["first key with a long descriptive name", "second", "third"]) {
    await mintInPortal(page, name);
    await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
  }
  await expect(page.getByTestId("active-count")).toHaveText("3 of 3 active keys");
  const create = page.getByRole("button", { name: "Create key" });
  await expect(create).toBeDisabled();
  await expect(page.getByTestId("create-key-full")).toContainText("3 of 3 active keys");

  for (const width of [1280, 390]) {
    await test.step(`${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.reload();
      await expect(page.getByTestId("keys-manager")).toHaveAttribute("data-ready", "true");
      const { overflow, offenders } = await sidewaysOverflow(page);
      expect(overflow, `sideways scroll at ${width}: ${offenders}`).toBeLessThanOrEqual(0);
      if (width === 1280) {
        // The whole table fits its card: nothing to scroll, every Revoke fully inside.
        const scroll = page.getByTestId("keys-table-scroll");
        const fits = await scroll.evaluate((el) => el.scrollWidth <= el.clientWidth);
        expect(fits, "the keys table needs no scrolling at 1280 px").toBe(true);
        const card = (await scroll.boundingBox())!;
        for (const revoke of await page.getByRole("button", { name: /^Revoke / }).all()) {
          const box = (await revoke.boundingBox())!;
          expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
        }
      }
      await page.screenshot({ path: test.info().outputPath(`portal-${width}.png`), fullPage: true });
    });
  }
});

test("the first request is copied with one click", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signInThroughOutbox(page, uniquePortalEmail("e2e-copy"));
  const snippet = (await page.getByTestId("first-request").textContent())?.trim() ?? "";
  // the quickstart's variable, so the two paste in order
  expect(snippet).toMatch(/^curl -H "Authorization: Bearer \$PMB_API_KEY" \\\n {2}http.+\/v1$/);
  // at 390 px it wraps between words, never inside one ("B earer")
  await page.setViewportSize({ width: 390, height: 900 });
  const split = await page.getByTestId("first-request").evaluate((pre) => {
    const text = pre.textContent ?? "";
    const node = pre.querySelector("code")!.firstChild!;
    const broken: string[] = [];
    for (const m of text.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1 && !m[0].startsWith("http")) broken.push(m[0]);
    }
    return broken;
  });
  expect(split, "words broken across lines at 390 px").toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole("button", { name: "Copy the first request" }).click();
  await expect(page.getByRole("button", { name: "Copy the first request" })).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
});

test("a signed-in user downloads a bundle file with the session; it is the keyed file and counts on the key", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  await signInThroughOutbox(page, uniquePortalEmail("e2e-bundles"));
  await expect(page.getByTestId("bundles-need-key")).toBeVisible();
  const key = await mintInPortal(page, "bundles");
  await page.getByRole("button", { name: "I have stored the key, hide it" }).click();
  await page.reload();
  const link = page.getByTestId("bundle-file").first();
  await expect(link).toBeVisible();
  const href = (await link.getAttribute("href")) ?? "";
  expect(href).toMatch(/^\/portal\/downloads\/\d{4}-\d{2}\/[a-z_]+\.csv$/);

  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const file = await download.path();
  const { readFileSync } = await import("node:fs");
  const viaSession = readFileSync(file, "utf8");
  const viaKey = await request.get(href.replace("/portal", ""), { headers: { Authorization: `Bearer ${key}` } });
  expect(viaKey.status()).toBe(200);
  expect(viaSession).toBe(await viaKey.text());
  const remainingAfterKeyed = Number(viaKey.headers()["x-ratelimit-remaining-day"]);

  // The session download spent from the same key's windows: the next session request reports one fewer.
  const again = await page.request.get(href);
  expect(again.status()).toBe(200);
  expect(Number(again.headers()["x-ratelimit-remaining-day"])).toBe(remainingAfterKeyed - 1);

  // And it is metered on the key: the usage page lists /downloads for it.
  await page.getByRole("link", { name: /^Usage of bundles/ }).click();
  await expect(page).toHaveURL(/\/portal\/keys\/[0-9a-f-]+$/);
  await expect
    .poll(
      async () => {
        await page.reload();
        // Until the usage is flushed the table is absent: count, never wait on a missing row.
        const row = page.getByTestId("endpoints-table").locator('[data-endpoint="/downloads"]');
        return (await row.count()) ? Number(await row.getAttribute("data-total")) : 0;
      },
      { timeout: 30_000 },
    )
    .toBe(3);

  // Without a session the portal path does not serve the file.
  const anonymous = await request.get(href, { maxRedirects: 0 });
  expect(anonymous.status()).toBe(303);

  // Each month also as one archive, and the verifier one click away with its command.
  await page.goto("/portal");
  const archive = page.getByTestId("bundle-archive").first();
  const zipHref = (await archive.getAttribute("href")) ?? "";
  expect(zipHref).toMatch(/^\/portal\/downloads\/\d{4}-\d{2}\.zip$/);
  const zip = await page.request.get(zipHref);
  expect(zip.status()).toBe(200);
  expect(zip.headers()["content-type"]).toBe("application/zip");
  expect([...(await zip.body()).subarray(0, 2)]).toEqual([0x50, 0x4b]);
  const verifier = page.getByTestId("bundle-verifier");
  await expect(verifier.getByRole("link", { name: "recompute_bundles.py" })).toHaveAttribute(
    "href",
    "/tools/recompute_bundles.py",
  );
  await expect(verifier).toContainText("python3 recompute_bundles.py bundles");
  await expect(page.getByTestId("client-packages").locator('a[href^="/clients/"]')).toHaveCount(2);
});

test("a commercial licence request is stored, acknowledged by mail and listed for the operator", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/license");
  await expect(page.getByTestId("license-request-link")).toHaveAttribute("href", "/portal/license");
  const email = uniquePortalEmail("e2e-licence");
  await signInThroughOutbox(page, email);
  await page.goto("/portal/license");
  await expect(page.getByTestId("license-request-form")).toHaveAttribute("data-ready", "true");
  const organization = `Org ${Date.now()}`;
  await page.getByLabel("Your name").fill("Ada Analyst");
  await page.getByLabel("Organisation").fill(organization);
  await page.getByLabel("How will you use the data?").selectOption("product");
  await page.getByLabel(/Who will see the data/).fill("subscribers of our research terminal");
  await page.getByRole("button", { name: "Request a licence" }).click();
  const done = page.getByTestId("license-request-done");
  await expect(done).toContainText("received");
  const reference = (await done.getAttribute("data-reference")) ?? "";
  expect(reference).toMatch(/^LR-[0-9A-F]{8}$/);

  await page.goto(`/dev/outbox?to=${encodeURIComponent(email)}`);
  await expect(
    page.locator(`[data-testid="outbox-mail"][data-to="${email}"]`).filter({ hasText: reference }).first(),
  ).toBeVisible();

  const root = path.resolve(__dirname, "..");
  const out = execFileSync(
    path.join(root, "node_modules", ".bin", "tsx"),
    ["--conditions=react-server", "scripts/licenses.ts", "list"],
    {
      cwd: root,
      env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, DATABASE_URL: "", REDIS_URL: "" },
      encoding: "utf8",
      timeout: 90_000,
    },
  );
  const line = out.split("\n").find((l) => l.includes(reference)) ?? "";
  expect(line).toContain(email);
  expect(line).toContain(organization);
  expect(line).toContain("acknowledged");
});
