import type { Heading } from "@/lib/docs/outline";

/** "On this page": the page's h2/h3 headings, read from its MDX source at build time. */
export function TableOfContents({ headings }: { headings: Heading[] }) {
  if (headings.length === 0) return null;
  return (
    <nav aria-label="On this page" className="text-sm">
      <p className="mb-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">On this page</p>
      <ul className="space-y-1.5 border-l border-slate-200">
        {headings.map((h) => (
          <li key={h.id} className={h.depth === 3 ? "pl-6" : "pl-3"}>
            <a href={`#${h.id}`} className="block text-slate-600! hover:text-slate-900! [overflow-wrap:anywhere]">
              {h.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
