"use client";

import { useId, useSyncExternalStore, type KeyboardEvent } from "react";
import { CodeView } from "./code-view";

const STORAGE_KEY = "pmb-docs-lang";
const EVENT = "pmb-docs-lang";

function subscribe(onChange: () => void): () => void {
  window.addEventListener(EVENT, onChange);
  window.addEventListener("storage", onChange);
  return () => {
    window.removeEventListener(EVENT, onChange);
    window.removeEventListener("storage", onChange);
  };
}

function readChoice(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** The chosen language is shared by every tab group on every docs page (and remembered). */
function choose(lang: string): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // storage may be disabled; the choice then lasts for this page only
  }
  window.dispatchEvent(new Event(EVENT));
}

export interface CodePane {
  /** The choice remembered across tab groups: curl, ts or py. */
  key: string;
  /** The tab's name. */
  tab: string;
  /** The code's language, for highlighting. */
  lang: string;
  /** The block's label. */
  label: string;
  text: string;
}

/**
 * Tabs over code blocks: one panel per language, the first shown until a choice. Hidden panels
 * hold their code as plain text (no token markup) and are highlighted when chosen.
 */
export function CodeTabsClient({ panes }: { panes: CodePane[] }) {
  const id = useId();
  const langs = panes.map((p) => p.key);
  const stored = useSyncExternalStore(subscribe, readChoice, () => null);
  const active = stored && langs.includes(stored) ? stored : langs[0];

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = (index + step + langs.length) % langs.length;
    choose(langs[next]!);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  };

  return (
    <div className="code-tabs not-prose" data-code-tabs="">
      <div role="tablist" aria-label="Language" className="code-tablist">
        {langs.map((lang, i) => (
          <button
            key={lang}
            id={`${id}-tab-${i}`}
            type="button"
            role="tab"
            aria-selected={lang === active}
            aria-controls={`${id}-panel-${i}`}
            tabIndex={lang === active ? 0 : -1}
            onClick={() => choose(lang)}
            onKeyDown={(e) => onKeyDown(e, i)}
            className="code-tab"
          >
            {panes[i]!.tab}
          </button>
        ))}
      </div>
      {panes.map((pane, i) => (
        <div
          key={pane.key}
          id={`${id}-panel-${i}`}
          role="tabpanel"
          aria-labelledby={`${id}-tab-${i}`}
          hidden={pane.key !== active}
          data-example-lang={pane.key}
          className="code-panel"
        >
          <CodeView text={pane.text} lang={pane.lang} label={pane.label} plain={pane.key !== active} />
        </div>
      ))}
    </div>
  );
}
