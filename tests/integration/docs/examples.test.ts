import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { responses } from "@/lib/api/schemas";
import { call, newKey } from "../support/api";

// Every example request written in the docs runs against the test server (the demo market)
// and its response has the documented shape.
function mdxFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? mdxFiles(path.join(dir, d.name)) : d.name.endsWith(".mdx") ? [path.join(dir, d.name)] : []));
}

const requests = [
  ...new Set(mdxFiles("content/docs").flatMap((f) => [...fs.readFileSync(f, "utf8").matchAll(/\$BASE_URL(\/v1[^"'\s`]*)/g)].map((m) => m[1]!))),
].sort();

const ROUTES: Array<[RegExp, keyof typeof responses]> = [
  [/^\/v1$/, "service"],
  [/^\/v1\/indices$/, "indices"],
  [/^\/v1\/indices\/[^/]+\/latest$/, "indexLatest"],
  [/^\/v1\/indices\/[^/]+\/history$/, "indexHistory"],
  [/^\/v1\/indices\/[^/]+\/reconstitutions$/, "indexReconstitutions"],
  [/^\/v1\/volatility$/, "volatility"],
  [/^\/v1\/volatility\/[^/]+\/latest$/, "volatilityLatest"],
  [/^\/v1\/volatility\/[^/]+\/history$/, "volatilityHistory"],
  [/^\/v1\/downloads$/, "downloads"],
];

let key = "";
beforeAll(async () => {
  key = (await newKey()).key;
});

describe("example requests in the docs", () => {
  it("there are examples for every endpoint", () => {
    const covered = new Set(requests.map((r) => ROUTES.find(([re]) => re.test(r.split("?")[0]!))?.[1]));
    expect([...covered].sort()).toEqual(Object.keys(responses).sort());
  });

  it.each(requests)("GET %s answers 200 with the documented shape", async (request) => {
    const route = ROUTES.find(([re]) => re.test(request.split("?")[0]!));
    expect(route, `no schema for ${request}`).toBeTruthy();
    const res = await call(request, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const parsed = responses[route![1]].safeParse(res.body);
    expect(parsed.error?.issues.slice(0, 3) ?? []).toEqual([]);
  });
});
