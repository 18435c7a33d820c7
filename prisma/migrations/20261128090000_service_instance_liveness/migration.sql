-- Each running server records where it runs (host, pid) for `npm run instances -- list`, and the
-- newest revocation it has applied to its key cache (`revocationsSeenAt`), so a revocation can
-- wait until every live instance has confirmed it.
ALTER TABLE "service_instances" ADD COLUMN "host" TEXT;
ALTER TABLE "service_instances" ADD COLUMN "pid" INTEGER;
ALTER TABLE "service_instances" ADD COLUMN "revocationsSeenAt" TIMESTAMPTZ(6);
