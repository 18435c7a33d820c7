-- The constituents of levels (their condition ids, in order), stored once per index and set instead
-- of in every hourly level. A level written so holds the key of its set and only its per-hour values
-- (prices, and where they differ from the usual: sources, observation times, stale flags). Levels
-- written before keep their full inputs.
CREATE TABLE "level_constituent_sets" (
    "indexId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "conditionIds" TEXT[],

    CONSTRAINT "level_constituent_sets_pkey" PRIMARY KEY ("indexId","key")
);

ALTER TABLE "level_constituent_sets" ADD CONSTRAINT "level_constituent_sets_indexId_fkey" FOREIGN KEY ("indexId") REFERENCES "indices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
