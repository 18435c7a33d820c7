import { exampleFileText } from "@/lib/docs/example-files";

// A large docs example (lib/docs/example-files.ts), fetched by the page that shows it.
export async function GET(_request: Request, { params }: { params: Promise<{ file: string }> }) {
  const name = (await params).file.replace(/\.json$/, "");
  const text = exampleFileText(name);
  if (text === null) return Response.json({ error: { code: "not_found", message: `No docs example named '${name}'.` } }, { status: 404 });
  return new Response(text, { headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300" } });
}
