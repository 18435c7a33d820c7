import type { OutageRecord } from "@/lib/db/outage";

// The one process-wide reference: the composition root (lib/root.ts), kept on globalThis so that
// every compiled copy of lib/ in this process (the server's bundle, Next's pages and route files,
// Next's proxy bundle) reaches the same root. A leaf without imports of code, so proxy.ts can read
// the database's outage record without loading the database client, Redis or the root's modules.

/** What a module that must not load the root's imports reads of it (proxy.ts, lib/server/page-outage.ts). */
export interface RootView {
  database: { outage: OutageRecord };
}

const slot = globalThis as { __pmbRoot?: RootView };

/** The root held for this process, made by `make` on first use. */
export function heldRoot<R extends RootView>(make: () => R): R {
  return (slot.__pmbRoot ??= make()) as R;
}

/** The root held for this process, if one was made. */
export function heldRootIfAny(): RootView | undefined {
  return slot.__pmbRoot;
}

/** Forgets the held root (a test or a tool that closed it); the next `heldRoot` makes another. */
export function dropHeldRoot(root: RootView): void {
  if (slot.__pmbRoot === root) slot.__pmbRoot = undefined;
}

/** True while this process's database is known to be unavailable (no root yet: not known to be). */
export function databaseDown(): boolean {
  return (slot.__pmbRoot?.database.outage.since ?? null) !== null;
}
