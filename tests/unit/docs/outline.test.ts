import { describe, expect, test } from "vitest";
import { ERROR_CODES } from "@/lib/api/errors";
import { anchorsOf, headingsOf, plainText, sectionsOf } from "@/lib/docs/outline";
import { markdownHeadingText, slugify } from "@/lib/docs/slug";

describe("slugify", () => {
  test.each([
    ["Rate limits", "rate-limits"],
    ["Retry-After and the reset headers", "retry-after-and-the-reset-headers"],
    ["GET /v1 is the quota report", "get-v1-is-the-quota-report"],
    ["invalid_api_key", "invalid_api_key"],
    ["6. Read levels as decimals", "6-read-levels-as-decimals"],
    ["  Décimal   strings!  ", "decimal-strings"],
    ["GET /v1/indices/{ticker}/latest", "get-v1-indices-ticker-latest"],
  ])("%s -> %s", (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });
});

describe("markdownHeadingText", () => {
  test.each([
    ["The fallback `error` code", "The fallback error code"],
    ["See [limits](/docs/limits)", "See limits"],
    ["GET /v1/indices/\\{ticker\\}", "GET /v1/indices/{ticker}"],
    ["**Bold** and *em*", "Bold and em"],
  ])("%s -> %s", (md, text) => {
    expect(markdownHeadingText(md)).toBe(text);
  });
});

const SOURCE = `import x from "./examples/x.json";

Intro text with a [link](/docs/limits).

## First section

Text.

\`\`\`bash
## not a heading inside a fence
echo "id=\\"nope\\""
\`\`\`

### A \`code\` subsection

<H2 id="custom">Explicit id</H2>

<section id="extra">anchored</section>
`;

describe("headingsOf / anchorsOf", () => {
  test("reads h2/h3 with slug ids, explicit ids, and skips fenced code", () => {
    expect(headingsOf(SOURCE)).toEqual([
      { depth: 2, text: "First section", id: "first-section" },
      { depth: 3, text: "A code subsection", id: "a-code-subsection" },
      { depth: 2, text: "Explicit id", id: "custom" },
    ]);
  });

  test("anchors include explicit id attributes outside code", () => {
    const anchors = anchorsOf(SOURCE);
    expect(anchors.has("extra")).toBe(true);
    expect(anchors.has("nope")).toBe(false);
    expect(anchors.has("not-a-heading-inside-a-fence")).toBe(false);
  });

  test("<ErrorReference /> expands to one h2 per error code", () => {
    const headings = headingsOf("Intro\n\n<ErrorReference />\n");
    expect(headings.map((h) => h.id)).toEqual(ERROR_CODES);
  });

  test("sections carry the intro and each heading's text", () => {
    const sections = sectionsOf(SOURCE);
    expect(sections[0]?.heading).toBeNull();
    expect(sections[0]?.text).toBe("Intro text with a link.");
    expect(sections[1]?.heading?.id).toBe("first-section");
  });
});

describe("plainText", () => {
  test("drops imports, JSX syntax and markdown punctuation but keeps words", () => {
    const text = plainText(`import a from "./a.json";

<Table
  code
  head={["Header", "Value"]}
  rows={[["X-RateLimit-Limit", "requests allowed in the **minute** window"]]}
/>

Both windows are **sliding logs**, not \`calendar\` buckets.`);
    expect(text).toBe(
      "Header Value X-RateLimit-Limit requests allowed in the minute window Both windows are sliding logs, not calendar buckets.",
    );
  });
});
