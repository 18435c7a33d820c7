-- Usage journal files already written to usage_counters (lib/api/metering.ts): a file replayed
-- again after a crash, or a batch whose commit answer was lost, is recognised and not counted twice.
CREATE TABLE "usage_journal_segments" (
    "name" TEXT NOT NULL,
    "appliedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_journal_segments_pkey" PRIMARY KEY ("name")
);

-- Running server instances and how they learn of revocations (lib/keys/instances.ts), so a tool
-- that revokes a key directly in the database knows whether every instance will see it.
CREATE TABLE "service_instances" (
    "id" TEXT NOT NULL,
    "redisPrefix" TEXT,
    "startedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seenAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_instances_pkey" PRIMARY KEY ("id")
);
