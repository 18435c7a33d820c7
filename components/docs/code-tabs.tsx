import { API_EXAMPLES, exampleCode, examplePath, type ApiExample, type ExampleId, type ScriptId } from "@/lib/docs/examples";
import { CodeBlock } from "./code-block";
import { CodeTabsClient } from "./code-tabs-client";
import { TryIt } from "./try-it";

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
  const live: ApiExample | null = example in API_EXAMPLES ? (API_EXAMPLES as Record<string, ApiExample>)[example]! : null;
  return (
    <div data-example={example}>
      <CodeTabsClient langs={TABS.map((t) => t.key)} labels={TABS.map((t) => t.label)}>
        {TABS.map((t) => (
          <CodeBlock key={t.key} code={code[t.key]} lang={t.lang} title={title ? `${title} · ${t.label}` : undefined} />
        ))}
      </CodeTabsClient>
      {live ? <TryIt path={examplePath(live)} /> : null}
    </div>
  );
}
