import { config } from "@/lib/config";
import { dataDir, lockHolder, openEmbedded } from "@/lib/db/embedded";
import { applyMigrations } from "@/lib/db/migrate";

// The embedded database belongs to one process: a running server migrates it itself at start.
async function main() {
  const dir = dataDir(config());
  const holder = await lockHolder(dir);
  if (holder !== null) {
    console.log(`db:migrate: the server (pid ${holder}) holds ${dir} and migrated it at start; nothing to do`);
    return;
  }
  const { pglite, release } = await openEmbedded(dir);
  try {
    const applied = await applyMigrations(pglite);
    console.log(applied.length ? `db:migrate: applied ${applied.join(", ")}` : "db:migrate: no pending migrations");
  } finally {
    await release();
  }
}

main().catch((error: Error) => {
  console.error(`db:migrate: ${error.message}`);
  process.exit(1);
});
