import "server-only";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * In the embedded default only the server may open the database, so operator CLIs talk to it
 * over loopback. The token lives in the data directory `dir` (mode 0600): whoever can read it can
 * already read the database files.
 */
export function operatorFiles(dir: string) {
  return { token: path.join(dir, "operator-token"), server: path.join(dir, "server.json") };
}

export function publishOperatorEndpoint(dir: string, port: number): void {
  const files = operatorFiles(dir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = crypto.randomBytes(32).toString("hex");
  fs.writeFileSync(files.token, token, { mode: 0o600 });
  fs.chmodSync(files.token, 0o600);
  fs.writeFileSync(files.server, JSON.stringify({ pid: process.pid, port }), { mode: 0o600 });
}

/** Whether a request may run an operator command: embedded only, from loopback, with the token in `dir`. */
export function operatorAllowed(headers: Headers, where: { embedded: boolean; dir: string }): boolean {
  if (!where.embedded) return false;
  const peer = headers.get("x-pmb-peer") ?? "";
  if (!["127.0.0.1", "::1", "::ffff:127.0.0.1"].includes(peer)) return false;
  const presented = headers.get("x-operator-token") ?? "";
  let token = "";
  try {
    token = fs.readFileSync(operatorFiles(where.dir).token, "utf8").trim();
  } catch {
    return false;
  }
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && a.length > 0 && crypto.timingSafeEqual(a, b);
}
