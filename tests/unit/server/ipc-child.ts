// Run by ipc.test.ts as the child of a fork: calls the parent and prints what came back.
import { callParent, hasParent } from "@/lib/server/ipc";

async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call };
  } catch (error) {
    return { error: (error as Error).name, message: (error as Error).message, code: (error as { code?: string }).code };
  }
}

async function main() {
  const out: Record<string, unknown> = { hasParent: hasParent() };
  out.add = await outcome(callParent("add", [2, 3]));
  out.later = await outcome(callParent("later", ["x"]));
  out.boom = await outcome(callParent("boom", []));
  out.unknown = await outcome(callParent("nope", []));
  out.slow = await outcome(callParent("slow", [], 100));
  // The parent disconnects when asked; a call then pending fails at once, not at its timeout.
  const pending = outcome(callParent("never", [], 60_000));
  void callParent("disconnect", []).catch(() => undefined);
  const started = Date.now();
  out.gone = await pending;
  out.goneWithinMs = Date.now() - started < 10_000;
  process.stdout.write(JSON.stringify(out));
}

void main();
