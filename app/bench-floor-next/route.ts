// The same bare handler at a path the production server leaves to Next's router (it serves
// /bench-floor, like /v1, without it: scripts/direct-routes.mjs), so `npm run bench` prints both.
export const dynamic = "force-dynamic";
export { GET } from "@/app/bench-floor/route";
