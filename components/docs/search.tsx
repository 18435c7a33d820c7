"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { SearchEntry } from "@/lib/docs/content";
import { excerpt, searchDocs } from "@/lib/docs/search";

const noSubscription = () => () => {};

/** True once React has hydrated this component in the browser (false in the server render). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/** The index's address (app/docs/search-index.json). */
export const SEARCH_INDEX_URL = "/docs/search-index.json";

let loading: Promise<SearchEntry[]> | null = null;

/** Fetches the search index once per page load; a failed fetch is tried again on the next use. */
function loadIndex(): Promise<SearchEntry[]> {
  loading ??= fetch(SEARCH_INDEX_URL).then(async (res) => {
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.json()) as SearchEntry[];
  });
  loading.catch(() => (loading = null));
  return loading;
}

/**
 * Search over the build-time index of every docs page. The index is not in the page: it is
 * fetched (once, then cached by the browser) when the search box is first focused or typed in.
 */
export function DocsSearch() {
  const router = useRouter();
  const hydrated = useHydrated();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [index, setIndex] = useState<SearchEntry[] | null>(null);
  const [failed, setFailed] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const hits = useMemo(() => (index ? searchDocs(index, query) : []), [index, query]);

  const open = () => {
    if (index) return;
    loadIndex().then(
      (entries) => {
        setIndex(entries);
        setFailed(false);
      },
      () => setFailed(true),
    );
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing =
        target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable);
      if (e.key === "/" && !typing) {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const close = () => {
    setQuery("");
    setActive(0);
  };

  return (
    <div className="relative" role="search" data-hydrated={hydrated ? "" : undefined}>
      <label htmlFor={`${listId}-input`} className="sr-only">
        Search the docs
      </label>
      <input
        ref={input}
        id={`${listId}-input`}
        type="search"
        placeholder="Search docs  ( / )"
        autoComplete="off"
        spellCheck={false}
        value={query}
        role="combobox"
        aria-expanded={hits.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        onFocus={open}
        onChange={(e) => {
          open();
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setActive((i) => Math.min(i + 1, hits.length - 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((i) => Math.max(i - 1, 0));
          } else if (e.key === "Enter") {
            const hit = hits[active];
            if (hit) {
              e.preventDefault();
              router.push(hit.entry.h);
              close();
            }
          } else if (e.key === "Escape") {
            close();
          }
        }}
        className="w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm placeholder:text-slate-400 focus:border-brand focus:ring-2 focus:ring-brand/20 focus:outline-none"
      />
      {query.trim() !== "" ? (
        <div className="absolute inset-x-0 top-full z-30 mt-1 max-h-[70vh] overflow-y-auto rounded-md border border-slate-200 bg-white shadow-lg md:w-[26rem]">
          {failed ? (
            <p role="status" className="px-3 py-3 text-sm text-rose-700">
              Search could not load its index. Check your connection and try again.
            </p>
          ) : !index ? (
            <p role="status" className="px-3 py-3 text-sm text-slate-500">
              Loading the search index…
            </p>
          ) : hits.length === 0 ? (
            <p className="px-3 py-3 text-sm text-slate-500">No results for “{query}”.</p>
          ) : (
            <ul id={listId} role="listbox" aria-label="Search results" className="py-1">
              {hits.map((hit, i) => (
                <li key={hit.entry.h} role="option" aria-selected={i === active}>
                  <Link
                    href={hit.entry.h}
                    onClick={close}
                    onMouseEnter={() => setActive(i)}
                    className={`block px-3 py-2 text-sm ${i === active ? "bg-slate-100" : ""}`}
                  >
                    <span className="block font-medium text-slate-900">
                      {hit.entry.s === "" ? hit.entry.p : hit.entry.s}
                    </span>
                    {hit.entry.s !== "" ? <span className="block text-xs text-slate-500">{hit.entry.p}</span> : null}
                    <span className="mt-0.5 block text-xs text-slate-600">{excerpt(hit.entry, query)}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </div>
  );
}
