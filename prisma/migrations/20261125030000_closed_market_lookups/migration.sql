-- The hour the collector first saw a held market closed on its venue without a resolution: its
-- look-ups slow down from then on (lib/venues/closed-lookup.ts) until it settles.
ALTER TABLE "markets" ADD COLUMN "closedAt" TIMESTAMPTZ(6);
