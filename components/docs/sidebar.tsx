"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { DocsSearch } from "./search";

export interface SidebarGroup {
  group: string;
  links: { href: string; label: string }[];
}

/** Search plus grouped page links; below the md breakpoint the links fold behind a Menu button. */
export function DocsSidebar({ groups }: { groups: SidebarGroup[] }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(pathname);
  // Navigating closes the phone menu (state derived from the path, no effect needed).
  if (openedAt !== pathname) {
    setOpenedAt(pathname);
    setOpen(false);
  }
  const current = groups.flatMap((g) => g.links).find((l) => l.href === pathname);

  return (
    // The search sits outside the scrolling list: its results are wider than the sidebar and
    // must not be clipped by the list's overflow box.
    <div className="space-y-3 md:sticky md:top-4">
      <DocsSearch />
      <button
        type="button"
        aria-expanded={open}
        aria-controls="docs-nav"
        onClick={() => setOpen((o) => !o)}
        className="flex w-full items-center justify-between rounded-md border border-slate-300 px-3 py-2 text-sm font-medium text-slate-800 md:hidden"
      >
        <span className="truncate">{current ? current.label : "Docs menu"}</span>
        <span aria-hidden="true">{open ? "✕" : "☰"}</span>
        <span className="sr-only">{open ? "Close docs menu" : "Open docs menu"}</span>
      </button>
      <nav
        id="docs-nav"
        aria-label="Docs"
        className={`${open ? "block" : "hidden"} md:block md:max-h-[calc(100vh-6rem)] md:overflow-y-auto md:pb-8`}
      >
        {groups.map((g) => (
          <div key={g.group} className="mb-5">
            <p className="mb-1.5 px-2 text-xs font-semibold tracking-wide text-slate-600 uppercase">{g.group}</p>
            <ul className="space-y-0.5">
              {g.links.map((link) => {
                const here = link.href === pathname;
                return (
                  <li key={link.href}>
                    <Link href={link.href} aria-current={here ? "page" : undefined} className="docs-nav-link">
                      {link.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </nav>
    </div>
  );
}
