import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, call, expectError, expectRateHeaders, newKey, startupSettled } from "../support/api";

async function fetchRaw(path: string, key?: string) {
  const res = await fetch(`${baseUrl()}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("snapshot bundles under /downloads", () => {
  // the closed months' bundles are built after the start-up backfill
  beforeAll(() => startupSettled(), 600_000);

  it("need a key, like /v1", async () => {
    const res = await call("/downloads/manifest.json");
    expectError(res, 401, "invalid_api_key");
  });

  it("GET /v1/downloads points at the latest manifest, which lists every closed month", async () => {
    const { key } = await newKey();
    const pointer = await call("/v1/downloads", { key });
    const latestUrl = new URL(pointer.body.data.latestManifestUrl);
    const latest = await call(latestUrl.pathname, { key });
    expect(latest.status).toBe(200);
    expectRateHeaders(latest, true);
    expect(latest.body.schemaVersion).toBe(7);
    expect(latest.body.months.length).toBeGreaterThanOrEqual(3);
    const months = latest.body.months.map((m: { month: string }) => m.month);
    expect([...months].sort()).toEqual(months);
    expect(months).not.toContain(new Date().toISOString().slice(0, 7));
  });

  it("every file matches its manifest's byte size, SHA-256 and row count", async () => {
    const { key } = await newKey();
    const latest = await call("/downloads/manifest.json", { key });
    const month = latest.body.months.at(-1);
    const manifest = await call(new URL(month.manifestUrl).pathname, { key });
    expect(manifest.body.month).toBe(month.month);
    // the manifest matches its docs: integer schemaVersion, each file with its download address
    expect(manifest.body.schemaVersion).toBe(7);
    const names = manifest.body.files.map((f: { name: string }) => f.name).sort();
    expect(names).toEqual([
      "chain_links.csv",
      "composition_members.csv",
      "compositions.csv",
      "constituent_prices.csv",
      "index_levels.csv",
      "restatements.csv",
      "target_weights.csv",
      "volatility_attribution.csv",
      "volatility_counterfactual_legs.csv",
      "volatility_forecast_record.csv",
      "volatility_history.csv",
      "volatility_inception.csv",
      "volatility_legs.csv",
      "volatility_series.csv",
    ]);
    for (const f of manifest.body.files as Array<{
      name: string;
      url: string;
      bytes: number;
      sha256: string;
      rows: number;
    }>) {
      expect(new URL(f.url).pathname).toBe(`/downloads/${month.month}/${f.name}`);
      const { res, bytes } = await fetchRaw(new URL(f.url).pathname, key);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/csv");
      expect(bytes.length).toBe(f.bytes);
      expect(crypto.createHash("sha256").update(bytes).digest("hex")).toBe(f.sha256);
      const records = parse(bytes, { columns: true }) as Array<Record<string, string>>;
      expect(records.length).toBe(f.rows);
      if (f.name === "index_levels.csv") {
        expect(f.rows).toBeGreaterThan(0);
        for (const r of records.slice(0, 50)) {
          expect(r.index_level).toMatch(/^\d+\.\d{8}$/);
          expect(["true", "false"]).toContain(r.stale);
          expect(r.t!.startsWith(month.month)).toBe(true);
        }
      }
    }
  });

  it("a month as one archive: its SHA-256 in the latest manifest, the month's manifest and files inside, one request against the key's limits", async () => {
    const { key } = await newKey();
    const latest = await call("/downloads/manifest.json", { key });
    for (const m of latest.body.months)
      expect(m.archive).toMatchObject({
        name: `${m.month}.zip`,
        url: expect.stringMatching(new RegExp(`/downloads/${m.month}\\.zip$`)),
      });
    const month = latest.body.months.at(-1);
    const before = Number(latest.headers.get("x-ratelimit-remaining"));
    const { res, bytes } = await fetchRaw(new URL(month.archive.url).pathname, key);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBe(before - 1);
    expect(bytes.length).toBe(month.archive.bytes);
    expect(crypto.createHash("sha256").update(bytes).digest("hex")).toBe(month.archive.sha256);
    // the same bytes on every request (the checksum in the manifest holds)
    const again = await fetchRaw(new URL(month.archive.url).pathname, key);
    expect(crypto.createHash("sha256").update(again.bytes).digest("hex")).toBe(month.archive.sha256);
    expect(Number(again.res.headers.get("x-ratelimit-remaining"))).toBe(before - 2);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-archive-"));
    try {
      fs.writeFileSync(path.join(dir, "a.zip"), bytes);
      const unzip = spawnSync("unzip", ["-q", "a.zip"], { cwd: dir, encoding: "utf8" });
      expect(unzip.status, unzip.stderr).toBe(0);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, month.month, "manifest.json"), "utf8"));
      const served = await call(new URL(month.manifestUrl).pathname, { key });
      expect(manifest).toEqual(served.body);
      expect(fs.readdirSync(path.join(dir, month.month)).sort()).toEqual(
        ["manifest.json", ...manifest.files.map((f: { name: string }) => f.name)].sort(),
      );
      for (const f of manifest.files as Array<{ name: string; sha256: string; bytes: number }>) {
        const content = fs.readFileSync(path.join(dir, month.month, f.name));
        expect(content.length).toBe(f.bytes);
        expect(crypto.createHash("sha256").update(content).digest("hex")).toBe(f.sha256);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an unknown file answers not_found", async () => {
    const { key } = await newKey();
    expectError(await call("/downloads/2001-01/index_levels.csv", { key }), 404, "not_found");
    expectError(await call("/downloads/2026-01/..%2F..%2Fetc%2Fpasswd", { key }), 404, "not_found");
    expectError(await call("/downloads/2001-01.zip", { key }), 404, "not_found");
    expectError(await call("/downloads/2026-13.zip", { key }), 404, "not_found");
  });
});
