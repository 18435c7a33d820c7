import "server-only";
import { endpoints, type EndpointName } from "@/lib/api/endpoints";
import { endpointParameters } from "@/lib/openapi/document";
import { HISTORY_MAX_DAYS, INTERVALS } from "@/lib/api/params";
import { config } from "@/lib/config";
import { docSource } from "./content";
import { errorSections } from "./error-reference";
import { DOC_PAGES, docHref } from "./pages";
import { paramRows } from "./params-table";

/**
 * /llms.txt: a plain-text guide for AI agents (https://llmstxt.org), generated from the tables the
 * docs render (the endpoint table, the parameter table, the error table and the configured
 * limits), so it says what the docs say and cannot drift from them.
 */

/** Relative docs links of the tables' Markdown, made absolute. */
function absolute(markdown: string, base: string): string {
  return markdown.replaceAll("](/", `](${base}/`);
}

/** The docs page whose banner names the endpoint's path. */
function referencePage(path: string): string | null {
  const page = DOC_PAGES.find((p) => docSource(p).includes(`<Endpoint path="${path}"`));
  return page ? docHref(page) : null;
}

export function llmsTxt(): string {
  const c = config();
  const base = c.baseUrl;
  const lines: string[] = [
    "# PM Benchmarks",
    "",
    "> Benchmark data for prediction markets: index levels (exact decimal strings) and volatility series computed from Polymarket and Kalshi markets, served as a JSON API, an MCP server, client libraries and monthly CSV bundles.",
    "",
    `- Base URL: ${base}/v1 (JSON; every success is \`{ "data": ..., "meta": ... }\`, every failure \`{ "error": { "code", "message", "docsUrl", "requestId" } }\`)`,
    `- Authentication: an API key in \`Authorization: Bearer <API_KEY>\` (or \`X-API-Key: <API_KEY>\`) on every request; keys are created in the portal at ${base}/portal`,
    `- MCP server: ${base}/mcp (Streamable HTTP; the same key, the same limits and the same values as the API)`,
    `- OpenAPI document: ${base}/openapi.json`,
    `- Human docs: ${base}/docs`,
    "",
    "## Limits",
    "",
    `- ${c.FREE_LIMIT_MINUTE} requests per minute and ${c.FREE_LIMIT_DAY} per day per key (a key's own limits are in \`GET /v1\` and in the X-RateLimit-* headers of every response)`,
    "- A 429 carries `Retry-After` in seconds: wait exactly that long, then retry",
    `- History endpoints serve the trailing ${HISTORY_MAX_DAYS}-day window; an older start is clamped, never rejected; intervals: ${INTERVALS.map((i) => `\`${i}\``).join(", ")}`,
    "- Timestamps are ISO 8601 in UTC; index levels are decimal strings: read them as decimals, not floats",
    "",
    "## Endpoints",
    "",
  ];
  for (const name of Object.keys(endpoints) as EndpointName[]) {
    const e = endpoints[name];
    const page = referencePage(e.path);
    lines.push(`### GET ${e.path}`, "", e.description, "");
    const params = endpointParameters(name);
    if (params.length > 0) {
      const rows = paramRows(name);
      lines.push("Parameters:", "");
      for (const [param, where, type, byDefault, rules] of rows)
        lines.push(`- \`${param}\` (${where}, ${type}, default ${byDefault}): ${absolute(rules ?? "", base)}`);
      lines.push("");
    }
    if (page) lines.push(`Reference: ${base}${page}`, "");
  }
  lines.push(
    "## Error codes",
    "",
    `Every failure names its code in \`error.code\`; \`error.docsUrl\` points to its section of ${base}/docs/errors.`,
    "",
  );
  for (const e of errorSections()) {
    lines.push(
      `- \`${e.code}\` (${e.statusLabel}): ${e.title}. When: ${absolute(e.when, base)} What to do: ${absolute(e.whatToDo, base)}`,
    );
  }
  lines.push("", "## Docs", "");
  for (const p of DOC_PAGES) lines.push(`- [${p.title}](${base}${docHref(p)}): ${p.description}`);
  return `${lines.join("\n")}\n`;
}
