-- AlterTable: the leg set of a volatility series over time (venue events list outcomes later and drop some)
ALTER TABLE "volatility_series" ADD COLUMN "legWindows" JSONB NOT NULL DEFAULT '[]';
