import { exampleFileText } from "@/lib/docs/example-files";

// A large docs example (lib/docs/example-files.ts), fetched by the page that shows it.
export async function GET(_request: Request, { params }: { params: Promise<{ file: string }> }) {
  const name = (await params).file.replace(/\.json$/, "");
  const text = exampleFileText(name);
  if (text === null)
    return new Response(`No docs example named '${name}'.\n`, {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  return new Response(text, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300" },
  });
}
