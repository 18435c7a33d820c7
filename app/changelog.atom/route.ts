import { config } from "@/lib/config";
import { changelogView } from "@/lib/data/changelog";
import { atomResponse } from "@/lib/site/atom";
import { root } from "@/lib/root";

// /changelog.atom: the changelog's entries (methodology versions, catalog changes, restatements) as an Atom feed.
export const dynamic = "force-dynamic";

const LABEL = { methodology: "Methodology", catalog: "Catalog", restatement: "Restatement" } as const;

export async function GET() {
  const base = config().baseUrl;
  const view = await changelogView(root().read);
  return atomResponse({
    id: `${base}/changelog`,
    title: "PM Benchmarks changelog",
    subtitle: "Methodology versions, catalog changes and restatements, newest first.",
    self: `${base}/changelog.atom`,
    alternate: `${base}/changelog`,
    entries: view.entries.map((e) => ({
      id: `${base}/changelog#${encodeURIComponent(`${e.kind}:${e.subject}:${e.at}:${e.title}`)}`,
      title: `${LABEL[e.kind]}: ${e.title}`,
      updated: e.at,
      published: e.at,
      link: `${base}${e.href ?? "/changelog"}`,
      summary: e.detail,
    })),
  });
}
