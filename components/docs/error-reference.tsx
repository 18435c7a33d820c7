import { ERROR_STATUS_HEAD, errorSections, errorStatusRows } from "@/lib/docs/error-reference";
import { formatJson } from "@/lib/docs/format-json";
import { CodeBlock, shownCode } from "./code-block";
import { ErrorSectionsView } from "./error-sections-view";
import { Table } from "./table";

/** One section per code of lib/api/errors.ts, with `id` equal to the code (the docsUrl fragment). */
export function ErrorReference() {
  const sections = errorSections().map(({ code, anchor, title, statusLabel, when, whatToDo, docsPath, example }) => ({
    code,
    anchor,
    title,
    statusLabel,
    when,
    whatToDo,
    docsPath,
    example: shownCode(formatJson(example)),
  }));
  return <ErrorSectionsView sections={sections} />;
}

/** The example failure body of one code, generated like the sections above (so it cannot drift). */
export function ErrorExample({ code, title }: { code: string; title?: string }) {
  const section = errorSections().find((e) => e.code === code);
  if (!section) throw new Error(`ErrorExample: unknown error code '${code}'`);
  return (
    <CodeBlock
      code={formatJson(section.example)}
      lang="json"
      title={title ?? `Example body (${section.statusLabel})`}
    />
  );
}

/** The codes by status with whether to retry, generated from the error table. */
export function ErrorCodes() {
  return <Table head={ERROR_STATUS_HEAD} rows={errorStatusRows()} />;
}
