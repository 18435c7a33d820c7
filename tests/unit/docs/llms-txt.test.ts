import { describe, expect, it } from "vitest";
import { endpoints, type EndpointName } from "@/lib/api/endpoints";
import { endpointParameters } from "@/lib/openapi/document";
import { ERROR_CODES } from "@/lib/api/errors";
import { config } from "@/lib/config";
import { llmsTxt } from "@/lib/docs/llms-txt";

// /llms.txt is generated from the docs' own tables: every endpoint, parameter and error code is in
// it, with the configured limits and absolute links.
describe("llms.txt", () => {
  const text = llmsTxt();
  const base = config().baseUrl;

  it("names the base URL, the auth header, the MCP address and the limits", () => {
    expect(text.startsWith("# PM Benchmarks\n")).toBe(true);
    expect(text).toContain(`Base URL: ${base}/v1`);
    expect(text).toContain("Authorization: Bearer <API_KEY>");
    expect(text).toContain(`MCP server: ${base}/mcp`);
    expect(text).toContain(`${config().FREE_LIMIT_MINUTE} requests per minute and ${config().FREE_LIMIT_DAY} per day`);
  });

  it("lists every endpoint with its parameters and its reference page", () => {
    for (const name of Object.keys(endpoints) as EndpointName[]) {
      const section = text.split(`### GET ${endpoints[name].path}\n`)[1]?.split("\n### ")[0] ?? "";
      expect(section, name).toContain(endpoints[name].description);
      for (const p of endpointParameters(name))
        expect(section, `${name} ${p.name}`).toContain(`- \`${p.name}\` (${p.in},`);
      expect(section, name).toMatch(new RegExp(`Reference: ${base.replaceAll(".", "\\.")}/docs/api/`));
    }
  });

  it("lists every error code, and no link is relative", () => {
    for (const code of ERROR_CODES) expect(text).toContain(`- \`${code}\` (`);
    expect(text).not.toMatch(/\]\(\//);
  });
});
