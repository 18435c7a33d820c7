import { runCommand } from "@/lib/operator/commands";
import { operatorAllowed } from "@/lib/operator/endpoint";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// Loopback-only endpoint through which operator CLIs reach the embedded database.
export async function POST(request: Request) {
  const { config, dataDir } = root();
  if (!operatorAllowed(request.headers, { embedded: config.embedded, dir: dataDir }))
    return Response.json({ error: "forbidden" }, { status: 403 });
  const body = (await request.json().catch(() => null)) as { command?: string; args?: unknown } | null;
  if (!body?.command) return Response.json({ error: "command required" }, { status: 400 });
  const result = await runCommand(body.command, body.args ?? {});
  return Response.json(result, { headers: { "Cache-Control": "no-store" } });
}
