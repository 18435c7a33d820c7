-- Back-calculated hourly prices, one row per market per UTC day (hours and prices as parallel
-- arrays) instead of one market_snapshots row per market per hour. Existing `history` snapshots
-- stay where they are and are read as before.
CREATE TABLE "market_history_prices" (
    "conditionId" TEXT NOT NULL,
    "day" TIMESTAMPTZ(6) NOT NULL,
    "hours" SMALLINT[],
    "bestBid" DECIMAL(12,8)[],
    "bestAsk" DECIMAL(12,8)[],
    "mid" DECIMAL(12,8)[],
    "lastAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "market_history_prices_pkey" PRIMARY KEY ("conditionId","day")
);

CREATE INDEX "market_history_prices_day_idx" ON "market_history_prices"("day");

ALTER TABLE "market_history_prices" ADD CONSTRAINT "market_history_prices_conditionId_fkey" FOREIGN KEY ("conditionId") REFERENCES "markets"("conditionId") ON DELETE RESTRICT ON UPDATE CASCADE;
