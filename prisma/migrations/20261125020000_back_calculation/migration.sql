-- Back-calculated history: the hour each entry went live (before it: values computed from the
-- venues' price history), where each snapshot came from, and what each published value rests on.
ALTER TABLE "indices" ADD COLUMN "launchAt" TIMESTAMPTZ(6);
ALTER TABLE "indices" ADD COLUMN "backCalculatedAt" TIMESTAMPTZ(6);
ALTER TABLE "volatility_series" ADD COLUMN "launchAt" TIMESTAMPTZ(6);
ALTER TABLE "volatility_series" ADD COLUMN "backCalculatedAt" TIMESTAMPTZ(6);
ALTER TABLE "market_snapshots" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'book';
ALTER TABLE "index_levels" ADD COLUMN "basis" TEXT NOT NULL DEFAULT 'live';
ALTER TABLE "volatility_ticks" ADD COLUMN "basis" TEXT NOT NULL DEFAULT 'live';
