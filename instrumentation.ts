// Runs once per server process before it serves requests: the node:http front for the production
// server (lib/api/node-adapter.ts), then database, demo market, scheduler.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.PMB_BUILD === "1") return;
  const { publishFront } = await import("@/lib/api/node-adapter");
  publishFront();
  const { boot } = await import("@/lib/server/boot");
  await boot();
}
