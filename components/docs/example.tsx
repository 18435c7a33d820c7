import { formatJson } from "@/lib/docs/format-json";
import { CodeBlock } from "./code-block";

/**
 * A JSON example. The data is imported by the MDX from content/docs/examples/*.json, so the
 * examples can be regenerated from live demo data without touching the pages.
 */
export function Example({ data, title = "Example response" }: { data: unknown; title?: string }) {
  return <CodeBlock code={formatJson(data)} lang="json" title={title} />;
}
