// Under `next dev` only: boots the database, demo market and scheduler in the dev server. The
// production server boots them itself (lib/server/http-server.ts), once per process.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { config } = await import("@/lib/config");
  if (config().NODE_ENV !== "development") return;
  const { boot } = await import("@/lib/server/boot");
  await boot();
}
