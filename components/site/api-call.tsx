import { CodeBlock } from "@/components/docs/code-block";

/** The API request behind what a page shows, ready to copy. */
export function ApiCall({ title, command, docsHref }: { title: string; command: string; docsHref?: string }) {
  return (
    <div data-testid="api-call" data-command={command}>
      <CodeBlock code={command} lang="bash" title={title} />
      {docsHref && (
        <p className="-mt-3 text-xs text-slate-600">
          Reference: <a href={docsHref}>{docsHref}</a>. Get a key in the <a href="/portal">portal</a>.
        </p>
      )}
    </div>
  );
}
