"use client";

import { useEffect, useState } from "react";
import type { Heading } from "@/lib/docs/outline";

/**
 * The heading whose section is being read: the last one scrolled past the top quarter of the
 * viewport (the first one before any is), following scrolling and hash changes.
 */
function useCurrentHeading(ids: string[]): string | null {
  const [current, setCurrent] = useState<string | null>(null);
  useEffect(() => {
    if (ids.length === 0) return;
    let frame = 0;
    const update = () => {
      frame = 0;
      const line = window.innerHeight * 0.25;
      let found: string | null = ids[0] ?? null;
      for (const id of ids) {
        const el = document.getElementById(id);
        if (el && el.getBoundingClientRect().top <= line) found = id;
      }
      // At the bottom of the page the last sections may never reach the line: take the last.
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2)
        found = ids[ids.length - 1] ?? found;
      setCurrent(found);
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    update();
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    window.addEventListener("hashchange", schedule);
    return () => {
      window.removeEventListener("scroll", schedule);
      window.removeEventListener("resize", schedule);
      window.removeEventListener("hashchange", schedule);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [ids]);
  return current;
}

/** "On this page": the page's h2/h3 headings, read from its MDX source at build time; the section being read is highlighted. */
export function TableOfContents({ headings }: { headings: Heading[] }) {
  const [ids] = useState(() => headings.map((h) => h.id));
  const current = useCurrentHeading(ids);
  if (headings.length === 0) return null;
  return (
    <nav aria-label="On this page" className="text-sm" data-testid="docs-toc">
      <p className="mb-2 text-xs font-semibold tracking-wide text-slate-600 uppercase">On this page</p>
      <ul className="space-y-1.5 border-l border-slate-200">
        {headings.map((h) => {
          const here = h.id === current;
          return (
            <li key={h.id} className={h.depth === 3 ? "pl-6" : "pl-3"}>
              <a href={`#${h.id}`} aria-current={here ? "location" : undefined} className="toc-link">
                {h.text}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
