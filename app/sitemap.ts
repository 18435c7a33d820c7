import type { MetadataRoute } from "next";
import { config } from "@/lib/config";
import { listIndices } from "@/lib/data/indices";
import { listVolatility } from "@/lib/data/volatility";
import { DOC_PAGES, docHref } from "@/lib/docs/pages";
import { root } from "@/lib/root";

// /sitemap.xml: every public page, from the catalog and the docs registry (the portal, the
// operator's pages and the development outbox are not public and not listed).
export const dynamic = "force-dynamic";

const STATIC_PAGES = ["/", "/indices", "/volatility", "/status", "/status/history", "/changelog", "/license", "/terms"];

export default async function sitemap(): Promise<MetadataRoute.Sitemap> {
  const base = config().baseUrl;
  const [indices, series] = await Promise.all([listIndices(root().read), listVolatility(root().read)]);
  const paths = [
    ...STATIC_PAGES,
    ...indices.indices.map((i) => `/indices/${i.ticker}`),
    ...series.series.map((s) => `/volatility/${s.slug}`),
    ...DOC_PAGES.map((p) => docHref(p)),
  ];
  return paths.map((path) => ({ url: `${base}${path}` }));
}
