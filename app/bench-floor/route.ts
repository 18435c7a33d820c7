import { config } from "@/lib/config";

export const dynamic = "force-dynamic";

// The framework's floor for `npm run bench`: a bare handler returning constant JSON.
// Only served when the benchmark starts the server with BENCH_FLOOR=1.
export function GET() {
  if (!config().BENCH_FLOOR) return new Response("Not found", { status: 404 });
  return Response.json({ data: { ok: true }, meta: {} });
}
