import { describe, expect, it } from "vitest";
import { call, countedUsage, expectError, newKey, RATE_HEADERS } from "../support/api";
import { INITIALIZE, callTool, connect, postMcp, rpc, structured, texts } from "./support";

describe("MCP tool calls spend the same minute and day windows as /v1", () => {
  it("each tools/call lowers the remaining quota the next /v1 call reports, across instances", async () => {
    const { key } = await newKey({ limitMinute: 50, limitDay: 500 });
    const before = (await call("/v1", { key, instance: 0 })).body.data.key;
    expect(before).toMatchObject({ remainingMinute: 49, remainingDay: 499 });
    const client = await connect(key, { instance: 1 });
    try {
      await callTool(client, "list_indices");
      await callTool(client, "get_downloads");
    } finally {
      await client.close();
    }
    const after = await call("/v1", { key, instance: 0 });
    // Two tool calls, then this /v1 call itself.
    expect(after.body.data.key).toMatchObject({ remainingMinute: 46, remainingDay: 496 });
    expect(after.headers.get("x-ratelimit-remaining")).toBe("46");
  });

  it("initialize, tools/list and notifications need a valid key but spend nothing; only tools/call counts", async () => {
    const { key } = await newKey({ limitMinute: 50, limitDay: 500 });
    const client = await connect(key);
    try {
      await client.listTools();
      await client.listTools();
      await client.ping();
    } finally {
      await client.close();
    }
    expect((await call("/v1", { key })).body.data.key).toMatchObject({ remainingMinute: 49, remainingDay: 499 });
  });

  it("a tools/call response carries the rate-limit headers of the windows after the call", async () => {
    const { key } = await newKey({ limitMinute: 10, limitDay: 100 });
    const res = await postMcp(rpc("tools/call", { name: "get_downloads", arguments: {} }), { key });
    expect(res.status).toBe(200);
    for (const h of RATE_HEADERS) expect(res.headers.has(h), h).toBe(true);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("9");
    expect(res.headers.get("x-ratelimit-remaining-day")).toBe("99");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("a limit of 3 per minute", () => {
  it("refuses the fourth MCP call with rate_limited and the seconds to wait, and /v1 agrees", async () => {
    const { key, id } = await newKey({ limitMinute: 3, limitDay: 100 });
    const client = await connect(key);
    try {
      for (let i = 0; i < 3; i++) {
        const ok = await callTool(client, "get_downloads");
        expect(ok.isError ?? false).toBe(false);
      }
      const refused = await callTool(client, "get_downloads");
      expect(refused.isError).toBe(true);
      const { error } = structured(refused);
      expect(error.code).toBe("rate_limited");
      expect(error.docsUrl).toMatch(/\/docs\/errors#rate_limited$/);
      const seconds = Number(/Retry in (\d+) seconds/.exec(error.message)?.[1]);
      expect(seconds).toBeGreaterThan(0);
      // The reset is rounded up and "now" down, so a full minute can read as 61 seconds.
      expect(seconds).toBeLessThanOrEqual(61);
      expect(texts(refused)[0]).toContain(`Retry in ${seconds} seconds`);
      // Listing still works: it needs the key, not the quota.
      expect((await client.listTools()).tools.length).toBe(9);
    } finally {
      await client.close();
    }
    const v1 = await call("/v1/downloads", { key });
    expectError(v1, 429, "rate_limited");

    const count = await countedUsage(id, 5);
    expect(count("mcp:get_downloads", "2xx")).toBe(3);
    expect(count("mcp:get_downloads", "429")).toBe(1);
    expect(count("/v1/downloads", "429")).toBe(1);
  });
});

describe("usage metering", () => {
  it("records each tool call as mcp:<tool_name> with its status class", async () => {
    const { key, id } = await newKey();
    const client = await connect(key);
    try {
      await callTool(client, "list_indices");
      await callTool(client, "get_index_latest", { ticker: "NO-SUCH-INDEX" });
      await callTool(client, "get_quota");
    } finally {
      await client.close();
    }
    const count = await countedUsage(id, 3);
    expect(count("mcp:list_indices", "2xx")).toBe(1);
    expect(count("mcp:get_index_latest", "4xx")).toBe(1);
    expect(count("mcp:get_quota", "2xx")).toBe(1);
  });

  it("initialize and tools/list are not metered", async () => {
    const { key, id } = await newKey();
    expect((await postMcp(INITIALIZE, { key })).body.result.serverInfo.name).toBe("pmbench");
    expect((await postMcp(rpc("tools/list"), { key })).body.result.tools).toHaveLength(9);
    const client = await connect(key);
    await callTool(client, "get_downloads");
    await client.close();
    // initialize and tools/list came first: had they been metered, they would be in the same
    // flush as the tool call or an earlier one.
    const count = await countedUsage(id, 1);
    expect(count.endpoints).toEqual(["mcp:get_downloads"]);
  });
});
