// The tests' own settings: where the shared PostgreSQL and Redis are. Read here and nowhere else
// in the tests; servers under test get their configuration from the environment a test gives them.
export const testRedisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
export const testPgAdminUrl = process.env.TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
