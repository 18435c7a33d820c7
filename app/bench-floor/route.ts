import { config } from "@/lib/config";

export const dynamic = "force-dynamic";

// A bare route handler returning constant JSON, served through Next's router (the production
// server answers only /v1 itself): `npm run bench` prints it beside the bare node:http row.
// Only served when the benchmark starts the server with BENCH_FLOOR=1.
export function GET() {
  if (!config().BENCH_FLOOR) return new Response("Not found", { status: 404 });
  return Response.json({ data: { ok: true }, meta: {} });
}
