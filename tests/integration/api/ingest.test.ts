import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { testDb } from "../support/api";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-ingest-"));
let market = "";

function ingest(name: string, content: string) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return spawnSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/ingest.ts", file],
    {
      env: { ...process.env, DATABASE_URL: inject("databaseUrl"), REDIS_URL: "" },
      encoding: "utf8",
    },
  );
}

async function prisma() {
  return testDb();
}

const at = (h: number) => new Date(Date.UTC(2031, 0, 1, h)).toISOString();
const line = (h: number, mid = "0.52", extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    observedAt: at(h),
    conditionId: market,
    label: "Test market",
    bestBid: "0.51",
    bestAsk: "0.53",
    mid,
    depthUsd: "1500.00",
    ...extra,
  });

beforeAll(async () => {
  const p = await prisma();
  market = `ingest-test-${Date.now()}`;
  await p.market.create({
    data: { conditionId: market, label: "Test market", listedAt: new Date("2030-01-01T00:00:00Z") },
  });
});

describe("npm run ingest", () => {
  it("stores a JSONL file; the same file twice changes nothing; a correction is a revision", async () => {
    const first = ingest("a.jsonl", [line(0), line(1), line(2)].join("\n"));
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("3 new");
    const again = ingest("a.jsonl", [line(0), line(1), line(2)].join("\n"));
    expect(again.stdout).toContain("0 new, 0 revised, 3 unchanged");
    const corrected = ingest("b.jsonl", [line(2, "0.5200001")].join("\n"));
    expect(corrected.stdout).toContain("1 revised");
    const rows = await (
      await prisma()
    ).marketSnapshot.findMany({ where: { conditionId: market }, orderBy: { observedAt: "asc" } });
    expect(rows.map((r) => r.revision)).toEqual([0, 0, 1]);
    expect(rows[2]!.mid.toString()).toBe("0.5200001");
  });

  it("reads CSV with a header row", async () => {
    const csv = `observedAt,conditionId,label,bestBid,bestAsk,mid,depthUsd\n${at(3)},${market},Test market,0.50,0.52,0.51,900\n`;
    const r = ingest("c.csv", csv);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("1 new");
  });

  it.each([
    [
      "missing field",
      () =>
        JSON.stringify({
          observedAt: at(10),
          conditionId: market,
          label: "x",
          bestBid: "0.5",
          bestAsk: "0.6",
          mid: "0.55",
        }),
      /missing field depthUsd/,
    ],
    ["price outside [0,1]", () => line(10, "1.2"), /mid is outside \[0, 1\]/],
    ["bid above ask", () => line(10, "0.5", { bestBid: "0.7", bestAsk: "0.6" }), /bestBid is above bestAsk/],
    ["unknown market", () => line(10, "0.5", { conditionId: "no-such-market" }), /unknown market no-such-market/],
    [
      "time going backwards",
      () => line(1, "0.5").replace(at(1), at(0).replace("00:00", "00:30")),
      /time goes backwards/,
    ],
  ])(
    "refuses a file with a bad row (%s), naming file and line, and stores nothing of it",
    async (_name, bad, reason) => {
      const p = await prisma();
      const before = await p.marketSnapshot.count({ where: { conditionId: market } });
      const r = ingest("bad.jsonl", [line(20), bad()].join("\n"));
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/bad\.jsonl:2: /);
      expect(r.stderr).toMatch(reason);
      expect(await p.marketSnapshot.count({ where: { conditionId: market } })).toBe(before);
    },
  );
});
