-- The engine corrections a database's published values were computed under (lib/ingest/corrections.ts):
-- a database computed before a correction is recomputed and restated at start. Existing databases
-- start at 0, so every correction is applied to them once.
ALTER TABLE "engine_state" ADD COLUMN "corrections" INTEGER NOT NULL DEFAULT 0;
