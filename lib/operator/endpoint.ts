import "server-only";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config } from "@/lib/config";
import { dataDir } from "@/lib/db/embedded";

/**
 * In the embedded default only the server may open the database, so operator CLIs talk to it
 * over loopback. The token lives in DATA_DIR (mode 0600): whoever can read it can already
 * read the database files.
 */
export function operatorFiles() {
  return { token: path.join(dataDir(), "operator-token"), server: path.join(dataDir(), "server.json") };
}

export function publishOperatorEndpoint(port: number): void {
  const files = operatorFiles();
  fs.mkdirSync(dataDir(), { recursive: true, mode: 0o700 });
  const token = crypto.randomBytes(32).toString("hex");
  fs.writeFileSync(files.token, token, { mode: 0o600 });
  fs.chmodSync(files.token, 0o600);
  fs.writeFileSync(files.server, JSON.stringify({ pid: process.pid, port }), { mode: 0o600 });
}

export function operatorAllowed(headers: Headers): boolean {
  if (!config().embedded) return false;
  const peer = headers.get("x-pmb-peer") ?? "";
  if (!["127.0.0.1", "::1", "::ffff:127.0.0.1"].includes(peer)) return false;
  const presented = headers.get("x-operator-token") ?? "";
  let token = "";
  try {
    token = fs.readFileSync(operatorFiles().token, "utf8").trim();
  } catch {
    return false;
  }
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && a.length > 0 && crypto.timingSafeEqual(a, b);
}
