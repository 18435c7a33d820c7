import { ENDPOINTS } from "@/lib/api/endpoint-table";
import { endpointParameters } from "@/lib/openapi/document";
import {
  API_EXAMPLES,
  exampleCode,
  examplePath,
  type ApiExample,
  type ExampleId,
  type ScriptId,
} from "@/lib/docs/examples";
import { languageLabel, shownCode } from "./code-block";
import { CodeTabsClient, type CodePane } from "./code-tabs-client";
import { TryIt, type TryItField } from "./try-it";

const TABS = [
  { key: "curl", label: "curl", lang: "bash" },
  { key: "ts", label: "TypeScript", lang: "ts" },
  { key: "py", label: "Python", lang: "python" },
] as const;

/**
 * curl, TypeScript and Python versions of one example from lib/docs/examples.ts (the one source
 * a test runs against the server), shown as tabs. An API example can be run live (Try it).
 */
export function CodeTabs({ example, title }: { example: ExampleId | ScriptId; title?: string }) {
  const code = exampleCode(example);
  const live: ApiExample | null =
    example in API_EXAMPLES ? (API_EXAMPLES as Record<string, ApiExample>)[example]! : null;
  const panes: CodePane[] = TABS.map((t) => ({
    key: t.key,
    tab: t.label,
    lang: t.lang,
    label: title ? `${title} · ${t.label}` : languageLabel(t.lang),
    text: shownCode(code[t.key]),
  }));
  return (
    <div data-example={example}>
      <CodeTabsClient panes={panes} />
      {live ? (
        <TryIt path={examplePath(live)} template={ENDPOINTS[live.endpoint].path} fields={tryItFields(live)} />
      ) : null}
    </div>
  );
}

/** Every parameter the endpoint takes (the endpoint table's), prefilled with the example's values. */
function tryItFields(example: ApiExample): TryItField[] {
  const query = (example.query ?? {}) as Record<string, string | number | boolean>;
  return endpointParameters(example.endpoint).map((p) => {
    const given = p.in === "path" ? example.ticker : query[p.name];
    const options = p.schema.type === "boolean" ? ["true", "false"] : p.schema.enum?.map(String);
    const hint =
      p.schema.format === "date-time"
        ? "ISO 8601"
        : p.schema.minimum !== undefined
          ? `${p.schema.minimum} to ${p.schema.maximum}`
          : undefined;
    return {
      name: p.name,
      in: p.in,
      value: given === undefined ? "" : String(given),
      options,
      hint,
      placeholder: p.schema.default === undefined ? "" : String(p.schema.default),
    };
  });
}
