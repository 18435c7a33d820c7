import { exampleFileHref, type ExampleFile } from "@/lib/docs/example-files";
import { formatJson } from "@/lib/docs/format-json";
import { CodeBlock } from "./code-block";
import { LazyCodeView } from "./lazy-code-view";

/**
 * A JSON example from content/docs/examples/*.json, so the examples can be regenerated from live
 * demo data without touching the pages. Small ones come as `data` (imported by the MDX) and are
 * part of the page; large ones are named by `file` (lib/docs/example-files.ts) and fetched by the
 * browser after the page, keeping the page's HTML light.
 */
export function Example({
  data,
  file,
  title = "Example response",
}: {
  data?: unknown;
  file?: ExampleFile;
  title?: string;
}) {
  if (file) return <LazyCodeView src={exampleFileHref(file)} lang="json" label={title} />;
  return <CodeBlock code={formatJson(data)} lang="json" title={title} />;
}
