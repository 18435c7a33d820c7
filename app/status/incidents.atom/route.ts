import { config } from "@/lib/config";
import { incidentHistory } from "@/lib/data/status";
import { atomResponse, atomTime } from "@/lib/site/atom";
import { root } from "@/lib/root";

// /status/incidents.atom: recorded incidents as an Atom feed; an entry is updated when a note is
// added or the incident is resolved, so a reader sees the change.
export const dynamic = "force-dynamic";

export async function GET() {
  const base = config().baseUrl;
  const incidents = (await incidentHistory(root().read)).filter((i) => i.ref !== null && i.openedAt !== null);
  return atomResponse({
    id: `${base}/status/history`,
    title: "PM Benchmarks incidents",
    subtitle: "Venue reads failing, stale indices and series, and incidents posted by the operator, with their notes.",
    self: `${base}/status/incidents.atom`,
    alternate: `${base}/status/history`,
    entries: incidents.map((i) => {
      const times = [i.openedAt!, ...(i.resolvedAt ? [i.resolvedAt] : []), ...i.notes.map((n) => n.at)];
      const summary = [
        `${i.severity === "major" ? "Major" : "Minor"} incident on ${i.subject}, opened ${i.openedAt}${i.resolvedAt ? `, resolved ${i.resolvedAt}` : ", open"}.`,
        ...i.notes.map((n) => `${n.at}: ${n.body}`),
      ].join("\n");
      return {
        id: `${base}/status/history#${i.ref}`,
        title: `${i.ref} ${i.resolvedAt ? "[resolved] " : ""}${i.title}`,
        updated: times.reduce((a, b) => (atomTime(b) > atomTime(a) ? b : a)),
        published: i.openedAt!,
        link: `${base}/status/history`,
        summary,
      };
    }),
  });
}
