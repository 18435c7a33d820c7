import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PrevNext } from "@/components/docs/prev-next";
import { TableOfContents } from "@/components/docs/toc";
import { docHeadings } from "@/lib/docs/content";
import { MDX_MODULES } from "@/lib/docs/mdx-modules";
import { neighbours, pageForSegments } from "@/lib/docs/pages";

// Rendered per request: every example shows the configured PUBLIC_BASE_URL, which the build cannot
// know (one build serves any address). Unknown paths are 404s.
export const dynamic = "force-dynamic";

type Props = { params: Promise<{ slug?: string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const page = pageForSegments((await params).slug);
  if (!page) return {};
  return { title: page.slug === "" ? { absolute: "Docs · PM Benchmarks" } : page.title, description: page.description };
}

export default async function DocPage({ params }: Props) {
  const page = pageForSegments((await params).slug);
  const load = page ? MDX_MODULES[page.file] : undefined;
  if (!page || !load) notFound();
  const { default: Content } = await load();
  const headings = docHeadings(page);
  const { prev, next } = neighbours(page);
  // Endpoint pages are titled by their method and path.
  const isEndpoint = page.title.startsWith("GET /");

  return (
    <div className="gap-10 xl:grid xl:grid-cols-[minmax(0,1fr)_13rem]">
      <article className="min-w-0" data-doc={page.slug || "overview"}>
        <p className="text-sm font-medium text-brand">{page.group}</p>
        <h1
          className={`mt-1 font-semibold tracking-tight text-slate-900 [overflow-wrap:anywhere] ${
            isEndpoint ? "font-mono text-2xl sm:text-[1.75rem]" : "text-3xl"
          }`}
        >
          {page.title}
        </h1>
        <p className="mt-3 text-lg text-slate-600">{page.description}</p>
        {headings.length > 1 ? (
          <details className="mt-6 rounded-lg border border-slate-200 px-4 py-2 xl:hidden">
            <summary className="cursor-pointer text-sm font-medium text-slate-700">On this page</summary>
            <div className="mt-3 mb-2">
              <TableOfContents headings={headings} />
            </div>
          </details>
        ) : null}
        <Content />
        <PrevNext prev={prev} next={next} />
      </article>
      <aside className="hidden xl:block">
        <div className="sticky top-4 max-h-[calc(100vh-2rem)] overflow-y-auto pb-8">
          <TableOfContents headings={headings} />
        </div>
      </aside>
    </div>
  );
}
