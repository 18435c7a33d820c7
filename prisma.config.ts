import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
import { NameAsTextPool } from "./lib/db/pg-pool";

// The Prisma CLI runs its wasm schema engine through a driver adapter: PGlite under
// `.data/` in the embedded default (scripts/prisma.mjs sets PRISMA_EMBEDDED), otherwise the
// PostgreSQL server named by DATABASE_URL.
export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    if (process.env.PRISMA_EMBEDDED === "1") {
      const { config } = await import("./lib/config");
      const { dataDir, openEmbedded } = await import("./lib/db/embedded");
      const { PrismaPGlite } = await import("pglite-prisma-adapter");
      const { pglite } = await openEmbedded(dataDir(config()));
      return new PrismaPGlite(pglite);
    }
    return new PrismaPg(new NameAsTextPool({ connectionString: process.env.DATABASE_URL, max: 2 }));
  },
});
