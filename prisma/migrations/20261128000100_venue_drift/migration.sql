-- Changes of a venue's API the connectors rely on, seen by the collector (lib/incidents/drift.ts):
-- each active one opens an incident naming the venue, the endpoint and the field.
CREATE TABLE "venue_drift" (
    "key" TEXT NOT NULL,
    "venue" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "detail" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMPTZ(6) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(6) NOT NULL,
    "clearedAt" TIMESTAMPTZ(6),
    CONSTRAINT "venue_drift_pkey" PRIMARY KEY ("key")
);
CREATE INDEX "venue_drift_clearedAt_idx" ON "venue_drift"("clearedAt");
