import { buildSearchIndex } from "@/lib/docs/content";

// The docs search index, built once from the MDX sources at build time. The search box fetches it
// when it is first used, so no docs page carries it in its HTML.
export const dynamic = "force-static";

export function GET() {
  return Response.json(buildSearchIndex(), { headers: { "Cache-Control": "public, max-age=300" } });
}
