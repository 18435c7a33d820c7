import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { waitFor } from "../../support/wait-for";

export interface RunningServer {
  baseUrl: string;
  port: number;
  process: ChildProcess;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** Starts the built production server (scripts/server.mjs) with the given environment. */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 180_000,
  healthyStatus = 200,
  nodeArgs: string[] = [],
): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let log = "";
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_BASE_URL: baseUrl,
    ...env,
  };
  const child = spawn(process.execPath, [...nodeArgs, "scripts/server.mjs"], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await untilHealthy(child, baseUrl, () => log, { timeoutMs, status: healthyStatus });
  return {
    baseUrl,
    port,
    process: child,
    output: () => log,
    stop: async (signal: NodeJS.Signals = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Waits until the server `child` runs answers /healthz with `status`; fails at once, with its log,
 * when it exits first, and kills it when the wait runs out.
 */
export async function untilHealthy(
  child: ChildProcess,
  baseUrl: string,
  log: () => string,
  { timeoutMs = 180_000, status = 200 }: { timeoutMs?: number; status?: number } = {},
): Promise<void> {
  let answered: number | null = null;
  try {
    const outcome = await waitFor(
      `${baseUrl}/healthz to answer ${status}`,
      async () => {
        if (child.exitCode !== null) return "exited";
        answered = (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) })).status;
        return answered === status && "healthy";
      },
      { timeoutMs, intervalMs: 250 },
    );
    if (outcome === "exited") throw new Error(`server exited with ${child.exitCode}:\n${log()}`);
  } catch (error) {
    if (child.exitCode === null) child.kill("SIGKILL");
    if (/^server exited/.test((error as Error).message)) throw error;
    throw new Error(`server did not become healthy in ${timeoutMs} ms (last answer ${answered}):\n${log()}`);
  }
}
