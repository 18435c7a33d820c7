type Task = { run: () => Promise<void>; order: number };

const state = ((globalThis as { __pmbShutdown?: { tasks: Task[]; installed: boolean; running: boolean } }).__pmbShutdown ??= {
  tasks: [],
  installed: false,
  running: false,
});

/** Registers work to finish on SIGTERM/SIGINT; lower `order` runs first. */
export function onShutdown(run: () => Promise<void>, order = 50): void {
  state.tasks.push({ run, order });
}

export async function runShutdown(): Promise<void> {
  if (state.running) return;
  state.running = true;
  for (const task of [...state.tasks].sort((a, b) => a.order - b.order)) {
    try {
      await task.run();
    } catch (error) {
      console.error(`[shutdown] ${(error as Error).message}`);
    }
  }
}

/** scripts/server.mjs owns the signals and calls this before it exits. */
export function installShutdown(): void {
  if (state.installed) return;
  state.installed = true;
  (globalThis as { __pmbRunShutdown?: () => Promise<void> }).__pmbRunShutdown = runShutdown;
}
