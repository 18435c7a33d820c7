import crypto from "node:crypto";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { baseUrl, call, expectError, expectRateHeaders, newKey } from "../support/api";

async function fetchRaw(path: string, key?: string) {
  const res = await fetch(`${baseUrl()}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("snapshot bundles under /downloads", () => {
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
    for (const f of manifest.body.files as Array<{ name: string; url: string; bytes: number; sha256: string; rows: number }>) {
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

  it("an unknown file answers not_found", async () => {
    const { key } = await newKey();
    expectError(await call("/downloads/2001-01/index_levels.csv", { key }), 404, "not_found");
    expectError(await call("/downloads/2026-01/..%2F..%2Fetc%2Fpasswd", { key }), 404, "not_found");
  });
});
