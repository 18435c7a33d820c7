/**
 * An Atom 1.0 feed (RFC 4287) as text: the few elements a feed reader needs, every text escaped.
 * Written here rather than with a feed library: it is one small serializer with no options.
 */

export interface AtomEntry {
  /** a stable, unique IRI for the entry */
  id: string;
  title: string;
  /** ISO 8601 */
  updated: string;
  published?: string;
  link: string;
  summary: string;
}

export interface AtomFeed {
  id: string;
  title: string;
  subtitle: string;
  /** the feed's own address */
  self: string;
  /** the page the feed follows */
  alternate: string;
  entries: AtomEntry[];
}

function escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** An API timestamp (microseconds, `Z` optional) as an RFC 3339 UTC date-time. */
export function atomTime(iso: string): string {
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`;
  return new Date(Date.parse(withZone.replace(/(\.\d{3})\d+/, "$1"))).toISOString();
}

export function atomXml(feed: AtomFeed): string {
  const updated = feed.entries.reduce(
    (max, e) => (atomTime(e.updated) > max ? atomTime(e.updated) : max),
    "1970-01-01T00:00:00.000Z",
  );
  const entries = feed.entries.map((e) =>
    [
      "  <entry>",
      `    <id>${escape(e.id)}</id>`,
      `    <title>${escape(e.title)}</title>`,
      `    <updated>${atomTime(e.updated)}</updated>`,
      e.published ? `    <published>${atomTime(e.published)}</published>` : null,
      `    <link rel="alternate" type="text/html" href="${escape(e.link)}"/>`,
      `    <summary>${escape(e.summary)}</summary>`,
      "  </entry>",
    ]
      .filter((l) => l !== null)
      .join("\n"),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${escape(feed.id)}</id>`,
    `  <title>${escape(feed.title)}</title>`,
    `  <subtitle>${escape(feed.subtitle)}</subtitle>`,
    `  <updated>${updated}</updated>`,
    `  <author><name>PM Benchmarks</name></author>`,
    `  <link rel="self" type="application/atom+xml" href="${escape(feed.self)}"/>`,
    `  <link rel="alternate" type="text/html" href="${escape(feed.alternate)}"/>`,
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}

/** The response of a feed route. */
export function atomResponse(feed: AtomFeed): Response {
  return new Response(atomXml(feed), {
    headers: { "Content-Type": "application/atom+xml; charset=utf-8", "Cache-Control": "public, max-age=60" },
  });
}
