import type http from "node:http";
import onHeaders from "on-headers";
import { PAGES_WITHOUT_DATABASE } from "@/lib/db/outage";
import { databaseDown } from "@/lib/root-slot";

/** Seconds a client is told to wait, as proxy.ts's outage page says. */
const RETRY_AFTER_SECONDS = "5";

/**
 * A page whose rendering met a database outage answers 503 with Retry-After, even the first one
 * (proxy.ts answers the later ones before rendering). Next gives a server component no way to
 * choose its status: its error document goes out as a 500. The failing read marks the outage
 * (the root's database, lib/db.ts) before the head is written; an outage
 * known then, for a page that needs the database, began while this page rendered, so the head is
 * corrected just before it leaves.
 */
export function answerPageOutageWith503(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  if (PAGES_WITHOUT_DATABASE.test(path)) return;
  onHeaders(res, function (this: http.ServerResponse) {
    if (!databaseDown() || !String(this.getHeader("content-type") ?? "").startsWith("text/html")) return;
    this.statusCode = 503;
    if (!this.hasHeader("retry-after")) this.setHeader("Retry-After", RETRY_AFTER_SECONDS);
    this.setHeader("Cache-Control", "no-store");
  });
}
