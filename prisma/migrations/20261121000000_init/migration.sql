-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "ApiKeyStatus" AS ENUM ('active', 'rotated', 'revoked');

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "name" TEXT,
    "email" TEXT NOT NULL,
    "emailVerified" TIMESTAMPTZ(6),
    "image" TEXT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts" (
    "userId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL,
    "refresh_token" TEXT,
    "access_token" TEXT,
    "expires_at" INTEGER,
    "token_type" TEXT,
    "scope" TEXT,
    "id_token" TEXT,
    "session_state" TEXT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("provider","providerAccountId")
);

-- CreateTable
CREATE TABLE "sessions" (
    "sessionToken" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "expires" TIMESTAMPTZ(6) NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL
);

-- CreateTable
CREATE TABLE "verification_tokens" (
    "identifier" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "expires" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "verification_tokens_pkey" PRIMARY KEY ("identifier","token")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT 'Default key',
    "hash" CHAR(64) NOT NULL,
    "prefix" TEXT NOT NULL,
    "lastFour" CHAR(4) NOT NULL,
    "status" "ApiKeyStatus" NOT NULL DEFAULT 'active',
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(6),
    "revokedAt" TIMESTAMPTZ(6),
    "limitMinute" INTEGER,
    "limitDay" INTEGER,
    "replacesId" UUID,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_counters" (
    "keyId" UUID NOT NULL,
    "hour" TIMESTAMPTZ(6) NOT NULL,
    "endpoint" TEXT NOT NULL,
    "statusClass" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_counters_pkey" PRIMARY KEY ("keyId","hour","endpoint","statusClass")
);

-- CreateTable
CREATE TABLE "markets" (
    "conditionId" TEXT NOT NULL,
    "legKey" TEXT,
    "label" TEXT NOT NULL,
    "eventKey" TEXT,
    "settlementDate" DATE,
    "listedAt" TIMESTAMPTZ(6) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(6),
    "outcome" INTEGER,

    CONSTRAINT "markets_pkey" PRIMARY KEY ("conditionId")
);

-- CreateTable
CREATE TABLE "market_snapshots" (
    "conditionId" TEXT NOT NULL,
    "observedAt" TIMESTAMPTZ(6) NOT NULL,
    "bestBid" DECIMAL(12,8) NOT NULL,
    "bestAsk" DECIMAL(12,8) NOT NULL,
    "mid" DECIMAL(12,8) NOT NULL,
    "depthUsd" DECIMAL(20,2) NOT NULL,
    "resolved" BOOLEAN NOT NULL DEFAULT false,
    "outcome" INTEGER,
    "revision" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "market_snapshots_pkey" PRIMARY KEY ("conditionId","observedAt")
);

-- CreateTable
CREATE TABLE "indices" (
    "id" UUID NOT NULL,
    "ticker" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "theme" TEXT NOT NULL DEFAULT '',
    "inceptionAt" TIMESTAMPTZ(6) NOT NULL,
    "ceasedAt" TIMESTAMPTZ(6),
    "resolvedAt" TIMESTAMPTZ(6),
    "maturityType" TEXT NOT NULL DEFAULT 'PERPETUAL',
    "methodologyVersion" TEXT NOT NULL,
    "stalenessLimitSeconds" INTEGER NOT NULL DEFAULT 7200,
    "listed" BOOLEAN NOT NULL DEFAULT true,
    "seriesPartiallyResolved" BOOLEAN NOT NULL DEFAULT false,
    "engineState" JSONB,

    CONSTRAINT "indices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "index_levels" (
    "indexId" UUID NOT NULL,
    "t" TIMESTAMPTZ(6) NOT NULL,
    "level" DECIMAL(20,8) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "stale" BOOLEAN NOT NULL DEFAULT false,
    "compositionVersion" TEXT NOT NULL,
    "freshMarketsCount" INTEGER NOT NULL,
    "staleMarketsCount" INTEGER NOT NULL,
    "totalMarketsCount" INTEGER NOT NULL,
    "computedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "index_levels_pkey" PRIMARY KEY ("indexId","t")
);

-- CreateTable
CREATE TABLE "compositions" (
    "id" UUID NOT NULL,
    "indexId" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "effectiveAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "compositions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "composition_members" (
    "compositionId" UUID NOT NULL,
    "conditionId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "targetWeight" DECIMAL(20,12) NOT NULL,

    CONSTRAINT "composition_members_pkey" PRIMARY KEY ("compositionId","conditionId")
);

-- CreateTable
CREATE TABLE "reconstitution_events" (
    "id" UUID NOT NULL,
    "indexId" UUID NOT NULL,
    "completedAt" TIMESTAMPTZ(6) NOT NULL,
    "addedMarketCount" INTEGER NOT NULL,
    "removedMarketCount" INTEGER NOT NULL,
    "fromVersion" TEXT NOT NULL,
    "toVersion" TEXT NOT NULL,
    "levelAtLink" DECIMAL(20,8) NOT NULL,
    "oldBasketValue" DECIMAL(38,18) NOT NULL,
    "newBasketValue" DECIMAL(38,18) NOT NULL,
    "linkFactor" DECIMAL(38,18) NOT NULL,
    "detail" JSONB NOT NULL,

    CONSTRAINT "reconstitution_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "volatility_series" (
    "id" UUID NOT NULL,
    "ticker" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "productFamily" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "units" TEXT NOT NULL DEFAULT 'probability points',
    "definitionLine" TEXT NOT NULL,
    "headlineTenorDays" INTEGER NOT NULL,
    "tenorsDays" INTEGER[],
    "inceptionAt" TIMESTAMPTZ(6) NOT NULL,
    "settlementDate" DATE,
    "listed" BOOLEAN NOT NULL DEFAULT true,
    "methodologyUrl" TEXT NOT NULL,
    "relatedIndexTickers" TEXT[],
    "gates" JSONB NOT NULL,
    "inceptionConfig" JSONB NOT NULL,
    "legConditionIds" TEXT[],
    "engineState" JSONB,
    "retiredAt" TIMESTAMPTZ(6),

    CONSTRAINT "volatility_series_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "volatility_ticks" (
    "seriesId" UUID NOT NULL,
    "computedAt" TIMESTAMPTZ(6) NOT NULL,
    "headlinePts" DOUBLE PRECISION NOT NULL,
    "headlineTenorDays" INTEGER NOT NULL,
    "tenors" JSONB NOT NULL,
    "bandLoPts" DOUBLE PRECISION NOT NULL,
    "bandHiPts" DOUBLE PRECISION NOT NULL,
    "attrDeltaHeadlinePts" DOUBLE PRECISION NOT NULL,
    "attribution" JSONB NOT NULL,
    "budgetW" DOUBLE PRECISION NOT NULL,
    "wTilde" DOUBLE PRECISION NOT NULL,
    "effectiveN" DOUBLE PRECISION NOT NULL,
    "sumRaw" DOUBLE PRECISION NOT NULL,
    "fbvRPts" DOUBLE PRECISION NOT NULL,
    "fbvRLabel" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "publicationState" TEXT NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "gateFlags" JSONB NOT NULL,
    "components" JSONB NOT NULL,
    "counterfactual" JSONB NOT NULL,
    "labels" JSONB NOT NULL,
    "clockVersion" TEXT NOT NULL,
    "devigVersion" TEXT NOT NULL,
    "methodologyVersion" TEXT NOT NULL,
    "compositionVersion" TEXT NOT NULL,

    CONSTRAINT "volatility_ticks_pkey" PRIMARY KEY ("seriesId","computedAt")
);

-- CreateTable
CREATE TABLE "snapshot_bundles" (
    "month" TEXT NOT NULL,
    "generatedAt" TIMESTAMPTZ(6) NOT NULL,
    "manifest" JSONB NOT NULL,

    CONSTRAINT "snapshot_bundles_pkey" PRIMARY KEY ("month")
);

-- CreateTable
CREATE TABLE "snapshot_files" (
    "month" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "rows" INTEGER NOT NULL,
    "bytes" INTEGER NOT NULL,

    CONSTRAINT "snapshot_files_pkey" PRIMARY KEY ("month","name")
);

-- CreateTable
CREATE TABLE "engine_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "lastTickAt" TIMESTAMPTZ(6) NOT NULL,
    "demoSeed" INTEGER,
    "demoState" JSONB,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "engine_state_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_sessionToken_key" ON "sessions"("sessionToken");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_replacesId_key" ON "api_keys"("replacesId");

-- CreateIndex
CREATE INDEX "api_keys_userId_status_idx" ON "api_keys"("userId", "status");

-- CreateIndex
CREATE INDEX "usage_counters_keyId_hour_idx" ON "usage_counters"("keyId", "hour");

-- CreateIndex
CREATE INDEX "market_snapshots_observedAt_idx" ON "market_snapshots"("observedAt");

-- CreateIndex
CREATE UNIQUE INDEX "indices_ticker_key" ON "indices"("ticker");

-- CreateIndex
CREATE INDEX "compositions_indexId_effectiveAt_idx" ON "compositions"("indexId", "effectiveAt");

-- CreateIndex
CREATE UNIQUE INDEX "compositions_indexId_version_key" ON "compositions"("indexId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "reconstitution_events_indexId_completedAt_key" ON "reconstitution_events"("indexId", "completedAt");

-- CreateIndex
CREATE UNIQUE INDEX "volatility_series_ticker_key" ON "volatility_series"("ticker");

-- CreateIndex
CREATE UNIQUE INDEX "volatility_series_slug_key" ON "volatility_series"("slug");

-- CreateIndex
CREATE INDEX "volatility_ticks_seriesId_publicationState_computedAt_idx" ON "volatility_ticks"("seriesId", "publicationState", "computedAt");

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_replacesId_fkey" FOREIGN KEY ("replacesId") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_keyId_fkey" FOREIGN KEY ("keyId") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "market_snapshots" ADD CONSTRAINT "market_snapshots_conditionId_fkey" FOREIGN KEY ("conditionId") REFERENCES "markets"("conditionId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "index_levels" ADD CONSTRAINT "index_levels_indexId_fkey" FOREIGN KEY ("indexId") REFERENCES "indices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "compositions" ADD CONSTRAINT "compositions_indexId_fkey" FOREIGN KEY ("indexId") REFERENCES "indices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "composition_members" ADD CONSTRAINT "composition_members_compositionId_fkey" FOREIGN KEY ("compositionId") REFERENCES "compositions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reconstitution_events" ADD CONSTRAINT "reconstitution_events_indexId_fkey" FOREIGN KEY ("indexId") REFERENCES "indices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "volatility_ticks" ADD CONSTRAINT "volatility_ticks_seriesId_fkey" FOREIGN KEY ("seriesId") REFERENCES "volatility_series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snapshot_files" ADD CONSTRAINT "snapshot_files_month_fkey" FOREIGN KEY ("month") REFERENCES "snapshot_bundles"("month") ON DELETE CASCADE ON UPDATE CASCADE;

