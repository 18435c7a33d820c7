-- The demo's methodology link was stored as an absolute URL built from the public base URL of
-- the server that seeded the catalog. Store it as a path on this site, which the read model serves
-- against the current PUBLIC_BASE_URL, so a changed base URL changes the link with it.
UPDATE "volatility_series"
SET "methodologyUrl" = '/docs/methodology#volatility'
WHERE "methodologyUrl" ~ '^https?://[^/]+/docs/methodology#volatility$';
