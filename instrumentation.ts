// Runs once per server process before it serves requests: database, demo market, scheduler.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.PMB_BUILD === "1") return;
  const { boot } = await import("@/lib/server/boot");
  await boot();
}
