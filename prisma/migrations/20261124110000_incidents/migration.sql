-- CreateTable
CREATE TABLE "incidents" (
    "id" UUID NOT NULL,
    "key" TEXT,
    "source" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "openedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMPTZ(6),

    CONSTRAINT "incidents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "incident_notes" (
    "id" SERIAL NOT NULL,
    "incidentId" UUID NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "body" TEXT NOT NULL,

    CONSTRAINT "incident_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "venue_health" (
    "venue" TEXT NOT NULL,
    "lastRunAt" TIMESTAMPTZ(6) NOT NULL,
    "lastOkAt" TIMESTAMPTZ(6),
    "failing" BOOLEAN NOT NULL DEFAULT false,
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMPTZ(6),
    "markets" INTEGER NOT NULL DEFAULT 0,
    "stale" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "venue_health_pkey" PRIMARY KEY ("venue")
);

-- CreateIndex
CREATE INDEX "incidents_resolvedAt_idx" ON "incidents"("resolvedAt");

-- CreateIndex
CREATE INDEX "incidents_key_resolvedAt_idx" ON "incidents"("key", "resolvedAt");

-- CreateIndex
CREATE INDEX "incidents_openedAt_idx" ON "incidents"("openedAt");

-- CreateIndex
CREATE INDEX "incident_notes_incidentId_at_idx" ON "incident_notes"("incidentId", "at");

-- AddForeignKey
ALTER TABLE "incident_notes" ADD CONSTRAINT "incident_notes_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
