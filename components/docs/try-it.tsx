"use client";

import { useId, useState, useSyncExternalStore } from "react";

// Try it: the example's request, run live from the docs with the reader's own key. The key is
// kept in sessionStorage (this tab only, gone when it closes) and is sent only in the
// Authorization header of the request to this site's /v1 (the API), never elsewhere.

const STORAGE_KEY = "pmb-try-it-key";
const CHANGED = "pmb-try-it-key-changed";

function subscribe(onChange: () => void): () => void {
  window.addEventListener(CHANGED, onChange);
  window.addEventListener("storage", onChange);
  return () => {
    window.removeEventListener(CHANGED, onChange);
    window.removeEventListener("storage", onChange);
  };
}

function storedKey(): string {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? "";
  } catch {
    return "";
  }
}

function setStoredKey(key: string | null): void {
  try {
    if (key) sessionStorage.setItem(STORAGE_KEY, key);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage refused (private mode): the key lives for this page only
  }
  window.dispatchEvent(new Event(CHANGED));
}

interface Answer {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: string;
  ms: number;
}

function pretty(text: string, type: string | null): string {
  if (!type?.includes("json")) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One parameter of the endpoint, editable before the request is sent. */
export interface TryItField {
  name: string;
  in: "path" | "query";
  /** the example's value ("" when the example leaves it out) */
  value: string;
  /** the allowed values, when the endpoint takes only some (a select) */
  options?: string[];
  /** the accepted form, e.g. `ISO 8601` or `1 to 5000` */
  hint?: string;
  /** the endpoint's default, shown while empty */
  placeholder: string;
}

/** The request path from the endpoint's template and the edited values: path values encoded, empty query values left out. */
export function tryItPath(template: string, fields: TryItField[], values: Record<string, string>): string {
  let path = template;
  const query = new URLSearchParams();
  for (const f of fields) {
    const v = (values[f.name] ?? "").trim();
    if (f.in === "path") path = path.replace(`{${f.name}}`, encodeURIComponent(v));
    else if (v !== "") query.set(f.name, v);
  }
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

export function TryIt({
  path: examplePathValue,
  template,
  fields = [],
}: {
  path: string;
  template?: string;
  fields?: TryItField[];
}) {
  const id = useId();
  const key = useSyncExternalStore(subscribe, storedKey, () => "");
  const hydrated = useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, f.value])),
  );
  const path = template ? tryItPath(template, fields, values) : examplePathValue;

  async function run(): Promise<void> {
    setBusy(true);
    setFailure(null);
    const started = performance.now();
    try {
      // A path on this site: the request goes to the API and nowhere else.
      const res = await fetch(path, {
        headers: { Authorization: `Bearer ${key}` },
        cache: "no-store",
        credentials: "omit",
      });
      const body = await res.text();
      setAnswer({
        status: res.status,
        statusText: res.statusText,
        headers: [...res.headers.entries()].sort(([a], [b]) => a.localeCompare(b)),
        body: pretty(body, res.headers.get("content-type")),
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      setAnswer(null);
      setFailure(`The request did not complete: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section
      aria-labelledby={`${id}-title`}
      className="try-it not-prose"
      data-testid="try-it"
      data-path={path}
      data-ready={hydrated}
    >
      <h3 id={`${id}-title`} className="try-it-title">
        Try it
      </h3>
      {fields.length > 0 && (
        <fieldset className="try-it-fields" data-testid="try-it-fields">
          <legend className="try-it-label">Parameters (from the table above; leave one empty for its default)</legend>
          {fields.map((f) => (
            <div key={f.name} className="try-it-field">
              <label htmlFor={`${id}-${f.name}`} className="try-it-label">
                <span className="font-mono">{f.name}</span>{" "}
                <span className="text-slate-500">
                  ({f.in}
                  {f.hint ? `, ${f.hint}` : ""})
                </span>
              </label>
              {f.options ? (
                <select
                  id={`${id}-${f.name}`}
                  value={values[f.name] ?? ""}
                  onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
                  className="try-it-input"
                  data-param={f.name}
                >
                  <option value="">{f.placeholder ? `default (${f.placeholder})` : "not sent"}</option>
                  {f.options.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={`${id}-${f.name}`}
                  type="text"
                  value={values[f.name] ?? ""}
                  onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
                  placeholder={f.placeholder}
                  autoComplete="off"
                  spellCheck={false}
                  className="try-it-input"
                  data-param={f.name}
                />
              )}
            </div>
          ))}
        </fieldset>
      )}
      <p className="try-it-path" data-testid="try-it-request">
        GET {path}
      </p>
      {key ? (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <button type="button" onClick={() => void run()} disabled={busy} className="try-it-button">
            {busy ? "Sending…" : "Send request"}
          </button>
          <span className="text-sm text-slate-600">
            with your key <span className="font-mono">{`${key.slice(0, 13)}…`}</span>
          </span>
          <button
            type="button"
            onClick={() => setStoredKey(null)}
            className="text-sm text-brand underline hover:text-brand-dark"
          >
            Forget key
          </button>
        </div>
      ) : (
        <form
          className="try-it-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (draft.trim()) setStoredKey(draft.trim());
            setDraft("");
          }}
        >
          <div className="min-w-0 flex-1">
            <label htmlFor={`${id}-key`} className="try-it-label">
              Your API key
            </label>
            <input
              id={`${id}-key`}
              type="password"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder="svc_live_…"
              aria-describedby={`${id}-note`}
              className="try-it-input"
            />
          </div>
          <button type="submit" disabled={!hydrated} className="try-it-button">
            Use this key
          </button>
          <p id={`${id}-note`} className="try-it-note">
            Kept in this browser tab only (session storage) and sent only to this API. Every endpoint page uses it until
            you close the tab. Get a key in the <a href="/portal">portal</a>.
          </p>
        </form>
      )}
      {failure ? (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {failure}
        </p>
      ) : null}
      {answer ? (
        <div className="mt-4 space-y-2" data-testid="try-it-response" data-status={answer.status} aria-live="polite">
          <p className="text-sm text-slate-900">
            <span
              className={`rounded px-1.5 py-0.5 font-mono text-xs font-semibold ${answer.status < 400 ? "bg-emerald-50 text-emerald-800" : "bg-rose-50 text-rose-800"}`}
            >
              {answer.status} {answer.statusText}
            </span>{" "}
            <span className="text-slate-600">in {answer.ms} ms</span>
          </p>
          <details className="text-sm">
            <summary className="cursor-pointer text-slate-700">Response headers ({answer.headers.length})</summary>
            <dl
              className="mt-2 grid grid-cols-1 gap-x-4 font-mono text-xs sm:grid-cols-[max-content_1fr]"
              data-testid="try-it-headers"
            >
              {answer.headers.map(([name, value]) => (
                <div key={name} className="contents">
                  <dt className="text-slate-600">{name}</dt>
                  <dd className="mb-1 break-all text-slate-900 sm:mb-0">{value}</dd>
                </div>
              ))}
            </dl>
          </details>
          <pre
            tabIndex={0}
            aria-label="Response body"
            className="max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100"
            data-testid="try-it-body"
          >
            {answer.body}
          </pre>
        </div>
      ) : null}
    </section>
  );
}
