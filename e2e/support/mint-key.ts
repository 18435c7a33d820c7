import { execFileSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..");

export function uniqueEmail(prefix = "e2e-pages"): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/**
 * Mints an API key in the e2e server's database with the operator CLI (`npm run keys -- mint`).
 * The server holds the embedded database, so the CLI reaches it through its loopback operator
 * endpoint, found in the server's DATA_DIR (exported by playwright.config.ts as E2E_DATA_DIR).
 * E2E_API_KEY, when set, is used instead (a server started some other way).
 */
export function mintKey(email = uniqueEmail()): string {
  if (process.env.E2E_API_KEY) return process.env.E2E_API_KEY;
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error("E2E_DATA_DIR is not set: playwright.config.ts exports the e2e server's data directory");
  const stdout = execFileSync(
    path.join(root, "node_modules", ".bin", "tsx"),
    [
      "--conditions=react-server",
      "scripts/keys.ts",
      "mint",
      "--email",
      email,
      "--limit-minute",
      "100000",
      "--limit-day",
      "1000000",
      "--name",
      "e2e pages",
    ],
    {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "" },
      encoding: "utf8",
      timeout: 90_000,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const key = stdout.trim().split("\n").pop() ?? "";
  if (!/^svc_live_\S+$/.test(key)) throw new Error(`keys mint printed no key: ${stdout.slice(0, 200)}`);
  return key;
}
