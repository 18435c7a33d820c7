import { ERROR_STATUS_HEAD, errorSections, errorStatusRows } from "@/lib/docs/error-reference";
import { formatJson } from "@/lib/docs/format-json";
import { CodeBlock } from "./code-block";
import { Heading } from "./heading";
import { INLINE_CODE_CLASS } from "./inline";
import { Table } from "./table";

/** One section per code of lib/api/errors.ts, with `id` equal to the code (the docsUrl fragment). */
export function ErrorReference() {
  return (
    <>
      {errorSections().map((e) => (
        <section key={e.code} aria-labelledby={e.anchor} data-error-code={e.code}>
          <Heading level={2} id={e.anchor}>
            <code className="font-mono">{e.code}</code>
          </Heading>
          <dl className="doc-facts">
            <dt>Title</dt>
            <dd>{e.title}</dd>
            <dt>HTTP status</dt>
            <dd>{e.statusLabel}</dd>
            <dt>When it happens</dt>
            <dd>{e.when}</dd>
            <dt>What to do</dt>
            <dd>{e.whatToDo}</dd>
            <dt>docsUrl</dt>
            <dd>
              <code className={INLINE_CODE_CLASS}>{`{base}${e.docsPath}`}</code>
            </dd>
          </dl>
          <CodeBlock code={formatJson(e.example)} lang="json" title={`Example body (${e.statusLabel})`} />
        </section>
      ))}
    </>
  );
}

/** The example failure body of one code, generated like the sections above (so it cannot drift). */
export function ErrorExample({ code, title }: { code: string; title?: string }) {
  const section = errorSections().find((e) => e.code === code);
  if (!section) throw new Error(`ErrorExample: unknown error code '${code}'`);
  return <CodeBlock code={formatJson(section.example)} lang="json" title={title ?? `Example body (${section.statusLabel})`} />;
}

/** The codes by status with whether to retry, generated from the error table. */
export function ErrorCodes() {
  return <Table head={ERROR_STATUS_HEAD} rows={errorStatusRows()} />;
}
