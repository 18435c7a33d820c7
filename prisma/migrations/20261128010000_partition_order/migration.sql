-- Whether a volatility series' legs are consecutive intervals of one quantity (priced by the
-- cumulative form) or unordered outcomes (each leg as its own binary), from the catalog.
ALTER TABLE "volatility_series" ADD COLUMN "partitionOrder" TEXT NOT NULL DEFAULT 'unordered';
