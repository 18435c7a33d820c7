import type { ChildProcess } from "node:child_process";
import { config } from "@/lib/config";

// Calls between the API process (lib/server/api-process.ts) and the Next process it runs as its
// child, over Node's IPC channel (the `ipc` stdio of child_process.fork). The child calls, the
// parent answers: the parent holds what both must share without Redis (the rate-limit windows,
// the key cache). A call is `{ pmb: "call", id, op, args }`, its answer `{ pmb: "answer", id,
// value }` or `{ pmb: "answer", id, error }`.

interface CallMessage {
  pmb: "call";
  id: number;
  op: string;
  args: unknown[];
}

interface AnswerMessage {
  pmb: "answer";
  id: number;
  value?: unknown;
  error?: string;
}

/** What the parent answers, by operation name. */
export type Handlers = Record<string, (...args: never[]) => unknown>;

/** A call the parent could not answer (gone, too slow, or its handler threw). */
export class ParentCallError extends Error {
  /** Read by isUnavailableError (lib/db.ts): a request that needed the parent answers 503 unavailable. */
  readonly code = "PMB_API_PROCESS_UNAVAILABLE";
  constructor(message: string) {
    super(message);
    this.name = "ParentCallError";
  }
}

/** True in the Next process the API process runs (PMB_API_PARENT, set by it): calls go to the parent. */
export function hasParent(): boolean {
  return config().PMB_API_PARENT && typeof process.send === "function";
}

interface CallState {
  pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>;
  nextId: number;
  listening: boolean;
}

// One per process, on globalThis: Next may load this module more than once (the instrumentation
// hook and the route bundles), and every copy must share the ids and the one listener, or an
// answer could settle another copy's call of the same id.
const state: CallState = ((globalThis as { __pmbIpc?: CallState }).__pmbIpc ??= { pending: new Map(), nextId: 1, listening: false });
const pending = state.pending;

function listen(): void {
  if (state.listening) return;
  state.listening = true;
  process.on("message", (m: AnswerMessage) => {
    if (m?.pmb !== "answer") return;
    const call = pending.get(m.id);
    if (!call) return;
    pending.delete(m.id);
    clearTimeout(call.timer);
    if (m.error !== undefined) call.reject(new ParentCallError(m.error));
    else call.resolve(m.value);
  });
  process.on("disconnect", () => {
    for (const [id, call] of pending) {
      pending.delete(id);
      clearTimeout(call.timer);
      call.reject(new ParentCallError("the API process is gone"));
    }
  });
}

/** Calls `op` in the parent; rejects with ParentCallError when it is gone or does not answer in time. */
export function callParent<T>(op: string, args: unknown[], timeoutMs = 2000): Promise<T> {
  listen();
  return new Promise<T>((resolve, reject) => {
    const id = state.nextId++;
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new ParentCallError(`the API process did not answer ${op} within ${timeoutMs} ms`));
    }, timeoutMs);
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
    const message: CallMessage = { pmb: "call", id, op, args };
    try {
      process.send!(message, undefined, undefined, (error) => {
        if (!error) return;
        pending.delete(id);
        clearTimeout(timer);
        reject(new ParentCallError(`the API process cannot be reached: ${error.message}`));
      });
    } catch (error) {
      pending.delete(id);
      clearTimeout(timer);
      reject(new ParentCallError(`the API process cannot be reached: ${(error as Error).message}`));
    }
  });
}

/** In the parent: answers the child's calls with `handlers`. */
export function answerChild(child: ChildProcess, handlers: Handlers): void {
  child.on("message", (m: CallMessage) => {
    if (m?.pmb !== "call") return;
    const reply = (answer: Omit<AnswerMessage, "pmb" | "id">) => {
      if (child.connected) child.send({ pmb: "answer", id: m.id, ...answer }, (error) => error && undefined);
    };
    const handler = handlers[m.op];
    if (!handler) return reply({ error: `unknown operation ${m.op}` });
    Promise.resolve()
      .then(() => (handler as (...args: unknown[]) => unknown)(...m.args))
      .then(
        (value) => reply({ value }),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          console.error(`[api-process] ${m.op} for the Next process failed: ${message}`);
          reply({ error: message });
        },
      );
  });
}
