import { spawn } from "node:child_process";

/**
 * Runs a command without blocking the test worker (a synchronous run of a minute stalls its
 * reports to vitest); resolves with its exit status and standard output.
 */
export function runCommand(command: string, args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args);
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.on("error", reject).on("close", (status) => resolve({ status, stdout }));
  });
}
