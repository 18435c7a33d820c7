type Task = { run: () => Promise<void>; order: number };

/** Work to finish on SIGTERM/SIGINT, in order: one per root (lib/root.ts). */
export interface Shutdown {
  /** Registers work to finish at shutdown; lower `order` runs first. */
  on(run: () => Promise<void>, order?: number): void;
  /** Runs every task once, in order (the production server calls it when a signal arrives). */
  run(): Promise<void>;
}

export function createShutdown(): Shutdown {
  const tasks: Task[] = [];
  let running = false;
  return {
    on(run, order = 50) {
      tasks.push({ run, order });
    },
    async run() {
      if (running) return;
      running = true;
      for (const task of [...tasks].sort((a, b) => a.order - b.order)) {
        try {
          await task.run();
        } catch (error) {
          console.error(`[shutdown] ${(error as Error).message}`);
        }
      }
    },
  };
}
