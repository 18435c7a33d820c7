-- The inputs every published level and volatility value rests on (monthly bundle panels).
ALTER TABLE "index_levels" ADD COLUMN "inputs" JSONB;
ALTER TABLE "volatility_ticks" ADD COLUMN "inputs" JSONB;
