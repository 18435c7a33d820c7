import indexLatest from "@/content/docs/examples/index-latest.json";
import manifestLatest from "@/content/docs/examples/manifest-latest.json";
import manifestMonth from "@/content/docs/examples/manifest-month.json";
import volatilityCatalog from "@/content/docs/examples/volatility-catalog.json";
import volatilityHistory from "@/content/docs/examples/volatility-history.json";
import volatilityLatest from "@/content/docs/examples/volatility-latest.json";
import { withBaseUrl } from "./base-url";
import { formatJson } from "./format-json";

/**
 * The large JSON examples (several KB each), served at /docs/examples/NAME.json and fetched by the
 * page once the browser is idle, so a page's HTML does not carry them (components/docs/example.tsx).
 * index-latest is small but sits on the quickstart, whose code tabs leave it no room.
 */
export const EXAMPLE_FILES = {
  "index-latest": indexLatest,
  "manifest-latest": manifestLatest,
  "manifest-month": manifestMonth,
  "volatility-catalog": volatilityCatalog,
  "volatility-history": volatilityHistory,
  "volatility-latest": volatilityLatest,
} as const satisfies Record<string, unknown>;

export type ExampleFile = keyof typeof EXAMPLE_FILES;

export function exampleFileHref(file: ExampleFile): string {
  return `/docs/examples/${file}.json`;
}

/** The example as the page shows it: formatted, with the configured PUBLIC_BASE_URL; null for an unknown name. */
export function exampleFileText(name: string): string | null {
  if (!Object.hasOwn(EXAMPLE_FILES, name)) return null;
  return withBaseUrl(formatJson(EXAMPLE_FILES[name as ExampleFile]));
}
