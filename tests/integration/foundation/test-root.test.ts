import { describe, expect, it } from "vitest";
import { call, newKey } from "../support/api";

// Rule: the test files share one process, so a root built earlier from another configuration (a
// test on a database of its own whose code cleared the root's read cache) must not be where the
// next test's keys are minted: testDb() replaces it with the run's, whatever order the files run in.

describe("the test process's root", () => {
  it("is the run's again after code built one on another database: a key minted then answers 200", async () => {
    const run = process.env.DATABASE_URL;
    process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
    const { root } = await import("@/lib/root");
    root().cache.clear();
    process.env.DATABASE_URL = run;
    const { key } = await newKey();
    expect((await call("/v1/indices", { key })).status).toBe(200);
  });
});
