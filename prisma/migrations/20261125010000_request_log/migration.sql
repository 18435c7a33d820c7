-- CreateTable
CREATE TABLE "request_log" (
    "id" BIGSERIAL NOT NULL,
    "keyId" UUID NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL,
    "requestId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "errorCode" TEXT,

    CONSTRAINT "request_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "request_log_keyId_at_idx" ON "request_log"("keyId", "at" DESC);

-- AddForeignKey
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_keyId_fkey" FOREIGN KEY ("keyId") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
