import { describe, expect, it } from "vitest";
import { apiProcessRefusal, parseConfig } from "@/lib/config";

// Where the API process runs (lib/server/api-process.ts; the rule in lib/config.ts): on wherever
// it can when API_PROCESS is unset, as asked when it is set, and why it cannot.
const pg = { DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/db" };
const configs: Array<[string, Record<string, string>, RegExp | null]> = [
  ["PostgreSQL, one process", pg, null],
  ["PostgreSQL and Redis", { ...pg, REDIS_URL: "redis://127.0.0.1:6379" }, null],
  ["the embedded database", {}, /needs DATABASE_URL/],
  ["several workers", { ...pg, WEB_CONCURRENCY: "2" }, /WEB_CONCURRENCY > 1/],
  ["Next's router for /v1", { ...pg, PMB_DIRECT_ROUTES: "0" }, /PMB_DIRECT_ROUTES=0/],
];

describe("apiProcessRefusal", () => {
  it.each(configs)("%s", (_, env, expected) => {
    const refusal = apiProcessRefusal(parseConfig({ NODE_ENV: "production", API_PROCESS: "1", ...env }));
    if (expected === null) expect(refusal).toBeNull();
    else expect(refusal).toMatch(expected);
  });
});

describe("apiProcess: whether the production server runs as the API process", () => {
  it.each(configs)("unset, %s: wherever it can run", (_, env, refusal) => {
    expect(parseConfig({ NODE_ENV: "production", ...env }).apiProcess).toBe(refusal === null);
    expect(parseConfig({ NODE_ENV: "production", API_PROCESS: "auto", ...env }).apiProcess).toBe(refusal === null);
    expect(parseConfig({ NODE_ENV: "production", API_PROCESS: "", ...env }).apiProcess).toBe(refusal === null);
  });

  it.each(configs)("API_PROCESS=0, %s: never", (_, env) => {
    for (const off of ["0", "false", "no"]) expect(parseConfig({ NODE_ENV: "production", API_PROCESS: off, ...env }).apiProcess).toBe(false);
  });

  it.each(configs)("API_PROCESS=1, %s: always (the process refuses to start where it cannot run)", (_, env) => {
    for (const on of ["1", "true", "yes"]) expect(parseConfig({ NODE_ENV: "production", API_PROCESS: on, ...env }).apiProcess).toBe(true);
  });

  it("any other value fails the start", () => {
    expect(() => parseConfig({ NODE_ENV: "production", API_PROCESS: "sometimes" })).toThrow(/API_PROCESS/);
  });
});
