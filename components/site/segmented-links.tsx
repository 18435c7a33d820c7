import Link from "next/link";

export interface SegmentOption {
  key: string;
  label: string;
  /** read before the visible label by screen readers, e.g. "Range: " (so the name is "Range: 30 days") */
  ariaLabel: string;
  href: string;
}

/**
 * A labelled group of links that set one chart control through the URL (`?range=`, `?interval=`),
 * so every view is linkable and rendered on the server.
 */
export function SegmentedLinks({
  label,
  name,
  options,
  current,
}: {
  label: string;
  name: string;
  options: SegmentOption[];
  current: string;
}) {
  const id = `control-${name}`;
  return (
    <div className="flex items-center gap-2">
      <span id={id} className="text-sm text-slate-600">
        {label}
      </span>
      <ul
        role="list"
        aria-labelledby={id}
        data-testid={`control-${name}`}
        className="inline-flex overflow-hidden rounded-md border border-slate-300 text-sm"
      >
        {options.map((o) => {
          const active = o.key === current;
          return (
            <li key={o.key} className="border-l border-slate-300 first:border-l-0">
              <Link
                href={o.href}
                scroll={false}
                aria-current={active ? "true" : undefined}
                data-value={o.key}
                className={`block px-2.5 py-1.5 font-medium whitespace-nowrap no-underline focus:outline-none focus-visible:ring-2 focus-visible:ring-brand focus-visible:ring-inset ${
                  active ? "bg-slate-900 text-white! hover:text-white!" : "bg-white text-slate-700! hover:bg-slate-50"
                }`}
              >
                <span className="sr-only">{o.ariaLabel}</span>
                {o.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
