-- The fidelity of the venue history a market was back-calculated from, when coarser than hourly:
-- Polymarket's /prices-history has only 12-hour points for a resolved market (720 minutes). The
-- bundles mark the back-calculated hours whose prices were carried from such points.
ALTER TABLE "markets" ADD COLUMN "historyFidelityMinutes" INTEGER;
