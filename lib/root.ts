import "server-only";
import { config as readConfig, type Config } from "@/lib/config";
import { db, type Db } from "@/lib/db";
import { createReadCache, type ReadCache, type ReadContext } from "@/lib/data/read-cache";

// The composition root: the collaborators of one process, built once from the configuration and
// handed to lib/api, lib/data, lib/keys and lib/ratelimit as parameters. It is the one
// process-wide reference, so Next's compiled copy of lib/ and the server's bundle share one set;
// a test builds a root of its own with `createRoot`.

export interface Root {
  config: Config;
  /** The Prisma client (PGlite under DATA_DIR when DATABASE_URL is unset). */
  db: () => Promise<Db>;
  /** The read models' cache: cleared after the data changed (an engine tick, an ingest, an incident). */
  cache: ReadCache;
  /** What the read models of lib/data take. */
  read: ReadContext;
}

export function createRoot(config: Config): Root {
  const cache = createReadCache();
  return { config, db, cache, read: { db, cache } };
}

const slot = globalThis as { __pmbRoot?: Root };

/** This process's root, built on first use from the configuration. */
export function root(): Root {
  return (slot.__pmbRoot ??= createRoot(readConfig()));
}
