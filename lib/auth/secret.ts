import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config } from "@/lib/config";

/** The portal cannot sign anyone in: configuration is missing. The message says what to set. */
export class AuthConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthConfigError";
  }
}

const SECRET_FILE = "auth-secret";
const MIN_LENGTH = 32;

// The secret is AUTH_SECRET, else the file in DATA_DIR (written once, `wx`): every copy of this
// module (Next's and the server's) reads the same value, so each keeps its own memo of it.
const holder: { value: string | null; warned?: boolean } = { value: null };

/**
 * AUTH_SECRET signs nothing a client can forge here, but it salts the stored magic-link hashes
 * and the portal CSRF tokens, so every instance must share it. A configured value always wins.
 * Without one: a server on a shared PostgreSQL in production refuses (instances would disagree);
 * the embedded default and development generate one into DATA_DIR (0600) and reuse it.
 */
export function authSecret(): string {
  if (holder.value) return holder.value;
  const c = config();
  if (c.AUTH_SECRET) return (holder.value = c.AUTH_SECRET);
  if (c.NODE_ENV === "production" && !c.embedded) {
    throw new AuthConfigError(
      "AUTH_SECRET is not set. With DATABASE_URL in production every instance must share one secret: " +
        "set AUTH_SECRET to a random string of at least 32 characters (for example `openssl rand -base64 32`).",
    );
  }
  return (holder.value = readOrCreateSecret(c.DATA_DIR));
}

/** Whether the portal can sign people in; the error says what is missing. */
export function authReadiness(): { ok: true } | { ok: false; message: string } {
  try {
    authSecret();
    return { ok: true };
  } catch (error) {
    if (error instanceof AuthConfigError) {
      if (!holder.warned) console.error(`[auth] the portal cannot sign anyone in: ${error.message}`);
      holder.warned = true;
      return { ok: false, message: error.message };
    }
    throw error;
  }
}

function readOrCreateSecret(dataDir: string): string {
  const file = path.resolve(dataDir, SECRET_FILE);
  const existing = readSecret(file);
  if (existing) return existing;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fresh = randomBytes(32).toString("base64url");
  try {
    // `wx`: when two starts race, the first file wins and both read it back.
    fs.writeFileSync(file, `${fresh}\n`, { mode: 0o600, flag: "wx" });
    console.log(`[auth] generated AUTH_SECRET into ${file} (embedded default; set AUTH_SECRET to override)`);
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const raced = readSecret(file);
    if (!raced)
      throw new AuthConfigError(`${file} exists but holds no usable secret; delete it to generate a new one.`);
    return raced;
  }
}

function readSecret(file: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  if (text.length < MIN_LENGTH) return null;
  // Keep the file private even if someone loosened it.
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return text;
}
