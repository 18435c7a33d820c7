import { llmsTxt } from "@/lib/docs/llms-txt";

// /llms.txt: the guide for AI agents, generated per request from the docs' tables (the base
// address is the running server's).
export const dynamic = "force-dynamic";

export function GET() {
  return new Response(llmsTxt(), {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=300" },
  });
}
