"use client";

import { CodeView } from "./code-view";
import { Heading } from "./heading";
import { INLINE_CODE_CLASS } from "./inline";

// A client component on purpose: the page's React Server Components payload then carries each
// error code's section as its strings, instead of one element per fact (the same trade as
// CodeView and TableView). The HTML is rendered on the server all the same.

export interface ErrorSectionText {
  code: string;
  anchor: string;
  title: string;
  statusLabel: string;
  when: string;
  whatToDo: string;
  docsPath: string;
  /** The example failure body as the page shows it (formatted, with the configured address). */
  example: string;
}

/** The sections of /docs/errors, one per code, each with `id` equal to the code (the docsUrl fragment). */
export function ErrorSectionsView({ sections }: { sections: ErrorSectionText[] }) {
  return sections.map((e) => (
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
      <CodeView text={e.example} lang="json" label={`Example body (${e.statusLabel})`} />
    </section>
  ));
}
