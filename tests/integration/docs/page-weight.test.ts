import { describe, expect, it } from "vitest";
import { EXAMPLE_FILES, type ExampleFile } from "@/lib/docs/example-files";
import { EXAMPLE_BASE_URL } from "@/lib/docs/examples";
import { DOC_PAGES, docHref } from "@/lib/docs/pages";
import { baseUrl } from "../support/api";

// Docs pages stay light: each page's HTML (its markup and the React Server Components payload Next
// inlines to hydrate it) is under 80 KB. The search index and the large JSON examples are fetched
// by the browser when needed, so no page carries them.
const LIMIT_BYTES = 80_000;

describe("docs page weight", () => {
  it.each(DOC_PAGES.map((p) => docHref(p)))("%s is under 80 KB of HTML", async (href) => {
    const res = await fetch(`${baseUrl()}${href}`);
    expect(res.status).toBe(200);
    const bytes = (await res.arrayBuffer()).byteLength;
    expect(bytes, `${href}: ${bytes} bytes`).toBeLessThan(LIMIT_BYTES);
  });

  it.each(Object.keys(EXAMPLE_FILES))(
    "the example %s is served to the page that fetches it, with this server's address",
    async (name) => {
      const res = await fetch(`${baseUrl()}/docs/examples/${name}.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual(
        JSON.parse(JSON.stringify(EXAMPLE_FILES[name as ExampleFile]).replaceAll(EXAMPLE_BASE_URL, baseUrl())),
      );
    },
  );

  it("an unknown example is a 404 that names it", async () => {
    const res = await fetch(`${baseUrl()}/docs/examples/no-such-example.json`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("no-such-example");
  });
});
