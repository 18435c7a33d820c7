"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

/**
 * A table's scrolling box. A focusable region (keyboard users scroll it too) that, while its
 * content runs past the right edge, says so in a line pinned to its left edge: on a phone a cut
 * column otherwise looks like the end of the table.
 */
export function ScrollFrame({
  className,
  testId,
  label,
  children,
}: {
  className: string;
  testId?: string;
  label?: string;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    el.addEventListener("scroll", measure, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener("scroll", measure);
    };
  }, []);

  return (
    <div ref={box} className={className} data-testid={testId} tabIndex={0} role="region" aria-label={label}>
      {more ? (
        <p data-testid="scroll-hint" className="sticky left-0 w-max px-3 pt-2 text-xs font-medium text-slate-600">
          More columns to the right: scroll sideways <span aria-hidden="true">→</span>
        </p>
      ) : null}
      {children}
    </div>
  );
}
