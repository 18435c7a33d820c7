import fs from "node:fs";
import path from "node:path";

/**
 * Runs an operator command: through the running embedded server when one holds the database,
 * otherwise in this process (real PostgreSQL, or no server running).
 */
export async function runOperator(command: string, args: Record<string, unknown>): Promise<number> {
  const { config } = await import("@/lib/config");
  const { lockHolder, dataDir } = await import("@/lib/db/embedded");
  let result: { stdout: string; stderr: string; exitCode: number };
  const dir = dataDir(config());
  if (config().embedded && (await lockHolder(dir)) !== null) {
    const token = fs.readFileSync(path.join(dir, "operator-token"), "utf8").trim();
    const { port } = JSON.parse(fs.readFileSync(path.join(dir, "server.json"), "utf8")) as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/operator`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Operator-Token": token },
      body: JSON.stringify({ command, args }),
    });
    if (!res.ok) throw new Error(`the running server refused the operator call (${res.status})`);
    result = (await res.json()) as typeof result;
  } else {
    const { runCommand } = await import("@/lib/operator/commands");
    const { root, closeRoot } = await import("@/lib/root");
    try {
      // A revocation made here must hold on the next request of every running instance.
      // An operator tool's queries are a job's (DB_JOB_TIMEOUT_MS): a backfill or a bundle build may run long.
      result = await root().database.asJob(async () => {
        const refusal =
          command === "keys.revoke" || command === "keys.rotate"
            ? await (await import("@/lib/keys/instances")).revocationReach(root())
            : null;
        return refusal ? { stdout: "", stderr: `refused: ${refusal}`, exitCode: 1 } : await runCommand(command, args);
      });
    } finally {
      await closeRoot(); // the journals, the Redis connection if the command made one, the database
    }
  }
  process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(result.stderr.endsWith("\n") ? result.stderr : `${result.stderr}\n`);
  return result.exitCode;
}

/** `--name value` and `--name=value` pairs; camelCases dashed names. */
export function parseFlags(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) continue;
    const [rawName, inline] = a.slice(2).split("=", 2) as [string, string | undefined];
    const name = rawName.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    out[name] = inline ?? argv[++i] ?? "";
  }
  return out;
}
