import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { apiProcessRefusal } from "@/lib/server/api-process";

// When API_PROCESS=1 refuses to start (lib/server/api-process.ts), and why.
describe("apiProcessRefusal", () => {
  const pg = { DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/db" };
  it.each([
    ["PostgreSQL, one process", pg, null],
    ["PostgreSQL and Redis", { ...pg, REDIS_URL: "redis://127.0.0.1:6379" }, null],
    ["the embedded database", {}, /needs DATABASE_URL/],
    ["several workers", { ...pg, WEB_CONCURRENCY: "2" }, /WEB_CONCURRENCY > 1/],
    ["Next's router for /v1", { ...pg, PMB_DIRECT_ROUTES: "0" }, /PMB_DIRECT_ROUTES=0/],
  ])("%s", (_, env, expected) => {
    const refusal = apiProcessRefusal(parseConfig({ NODE_ENV: "production", API_PROCESS: "1", ...env }));
    if (expected === null) expect(refusal).toBeNull();
    else expect(refusal).toMatch(expected);
  });
});
