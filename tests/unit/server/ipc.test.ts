import { fork } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { answerChild } from "@/lib/server/ipc";

// The calls between the API process and its Next child (lib/server/ipc.ts), over a real fork's
// IPC channel: values, async handlers, errors, unknown operations, timeouts and a parent gone.
describe("callParent / answerChild", () => {
  it("answers calls, reports errors and timeouts as ParentCallError, and fails pending calls when the parent goes", async () => {
    const child = fork(path.join(__dirname, "ipc-child.ts"), [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, PMB_API_PARENT: "1" },
      stdio: ["ignore", "pipe", "inherit", "ipc"],
    });
    answerChild(child, {
      add: (a: number, b: number) => a + b,
      later: async (s: string) => {
        await new Promise((r) => setTimeout(r, 20));
        return `${s}!`;
      },
      boom: () => {
        throw new Error("it broke");
      },
      slow: () => new Promise((r) => setTimeout(r, 1000)),
      never: () => new Promise(() => undefined),
      disconnect: () => {
        setTimeout(() => child.disconnect(), 50);
        return null;
      },
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r.hasParent).toBe(true);
    expect(r.add).toEqual({ value: 5 });
    expect(r.later).toEqual({ value: "x!" });
    const failure = { error: "ParentCallError", code: "PMB_API_PROCESS_UNAVAILABLE" };
    expect(r.boom).toEqual({ ...failure, message: "it broke" });
    expect(r.unknown).toEqual({ ...failure, message: "unknown operation nope" });
    expect(r.slow).toEqual({ ...failure, message: "the API process did not answer slow within 100 ms" });
    expect(r.gone).toEqual({ ...failure, message: "the API process is gone" });
    expect(r.goneWithinMs).toBe(true);
  });
});
