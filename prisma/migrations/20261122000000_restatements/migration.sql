-- AlterTable
ALTER TABLE "market_snapshots" ADD COLUMN     "ingested" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "restatements" (
    "id" UUID NOT NULL,
    "restatedAt" TIMESTAMPTZ(6) NOT NULL,
    "kind" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "t" TIMESTAMPTZ(6) NOT NULL,
    "revision" INTEGER NOT NULL,
    "previous" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "detail" JSONB NOT NULL,

    CONSTRAINT "restatements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "engine_checkpoints" (
    "t" TIMESTAMPTZ(6) NOT NULL,
    "demoState" JSONB NOT NULL,
    "indexStates" JSONB NOT NULL,
    "volStates" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "engine_checkpoints_pkey" PRIMARY KEY ("t")
);

-- CreateIndex
CREATE INDEX "restatements_restatedAt_idx" ON "restatements"("restatedAt");

-- CreateIndex
CREATE INDEX "restatements_kind_ticker_t_idx" ON "restatements"("kind", "ticker", "t");

-- CreateIndex
CREATE INDEX "market_snapshots_ingested_observedAt_idx" ON "market_snapshots"("ingested", "observedAt");


-- Rows corrected by an ingested file before this column existed came from a file.
UPDATE "market_snapshots" SET "ingested" = true WHERE "revision" > 0;
