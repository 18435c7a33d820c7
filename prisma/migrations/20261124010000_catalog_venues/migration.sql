-- Issue 14: the catalog as data, venue markets, raw venue responses.
ALTER TABLE "markets" ADD COLUMN "venue" TEXT NOT NULL DEFAULT 'demo',
  ADD COLUMN "theme" TEXT NOT NULL DEFAULT '',
  ADD COLUMN "selectors" TEXT[] DEFAULT ARRAY[]::TEXT[],
  ADD COLUMN "venueRef" TEXT;

ALTER TABLE "indices" ADD COLUMN "eligibility" JSONB,
  ADD COLUMN "universe" JSONB,
  ADD COLUMN "removedAt" TIMESTAMPTZ(6);

ALTER TABLE "volatility_series" ADD COLUMN "methodologyVersion" TEXT NOT NULL DEFAULT 'vol-1.0',
  ADD COLUMN "venue" TEXT NOT NULL DEFAULT 'demo',
  ADD COLUMN "event" TEXT NOT NULL DEFAULT '',
  ADD COLUMN "ceasedAt" TIMESTAMPTZ(6);

CREATE TABLE "catalog_versions" (
    "id" SERIAL NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "appliedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "summary" JSONB NOT NULL,
    "content" JSONB NOT NULL,
    CONSTRAINT "catalog_versions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "catalog_versions_appliedAt_idx" ON "catalog_versions"("appliedAt");

CREATE TABLE "venue_raw_responses" (
    "id" SERIAL NOT NULL,
    "venue" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(6) NOT NULL,
    "collectedAt" TIMESTAMPTZ(6) NOT NULL,
    "responses" INTEGER NOT NULL,
    "gzBase64" TEXT NOT NULL,
    CONSTRAINT "venue_raw_responses_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "venue_raw_responses_venue_hour_idx" ON "venue_raw_responses"("venue", "hour");
