import { describe, expect, it } from "vitest";
import { atomTime, atomXml } from "@/lib/site/atom";

describe("Atom feeds", () => {
  it("write RFC 3339 UTC times from API timestamps, with or without Z", () => {
    expect(atomTime("2026-11-21T13:00:00.123456")).toBe("2026-11-21T13:00:00.123Z");
    expect(atomTime("2026-11-21T13:00:00.123456Z")).toBe("2026-11-21T13:00:00.123Z");
    expect(atomTime("2026-11-21T14:00:00+01:00")).toBe("2026-11-21T13:00:00.000Z");
  });

  it("escape every text, and the feed is updated at its newest entry", () => {
    const xml = atomXml({
      id: "http://x/changelog",
      title: "A & B",
      subtitle: "<s>",
      self: "http://x/changelog.atom?a=1&b=2",
      alternate: "http://x/changelog",
      entries: [
        {
          id: "http://x/1",
          title: 'Index "X" <ceased>',
          updated: "2026-11-20T00:00:00.000000Z",
          link: "http://x/a",
          summary: "1 < 2 & 3 > 2",
        },
        { id: "http://x/2", title: "t", updated: "2026-11-21T00:00:00.000000Z", link: "http://x/b", summary: "s" },
      ],
    });
    expect(xml).toContain("<title>A &amp; B</title>");
    expect(xml).toContain("<subtitle>&lt;s&gt;</subtitle>");
    expect(xml).toContain('href="http://x/changelog.atom?a=1&amp;b=2"');
    expect(xml).toContain("<title>Index &quot;X&quot; &lt;ceased&gt;</title>");
    expect(xml).toContain("<summary>1 &lt; 2 &amp; 3 &gt; 2</summary>");
    expect(xml).toMatch(/<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">\n {2}<id>http:\/\/x\/changelog<\/id>/);
    expect(/<feed[^]*?<updated>([^<]+)<\/updated>/.exec(xml)?.[1]).toBe("2026-11-21T00:00:00.000Z");
    expect(xml.match(/<entry>/g)).toHaveLength(2);
  });
});
