import type { Metadata } from "next";
import { DocsSidebar, type SidebarGroup } from "@/components/docs/sidebar";
import { docGroups, docHref, navLabel } from "@/lib/docs/pages";

export const metadata: Metadata = {
  title: { default: "Docs", template: "%s · Docs · PM Benchmarks" },
};

export default function DocsLayout({ children }: { children: React.ReactNode }) {
  const groups: SidebarGroup[] = docGroups().map((g) => ({
    group: g.group,
    links: g.pages.map((p) => ({ href: docHref(p), label: navLabel(p) })),
  }));
  return (
    <div className="gap-8 md:grid md:grid-cols-[14rem_minmax(0,1fr)]">
      <aside className="mb-6 md:mb-0">
        <DocsSidebar groups={groups} />
      </aside>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
