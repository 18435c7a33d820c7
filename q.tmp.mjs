import { PGlite } from "@electric-sql/pglite";
const db = new PGlite(process.argv[2]);
for (const q of [`select * from usage_counters`, `select id, prefix, "lastUsedAt", "userId", status from api_keys`, `select * from usage_journal_segments`]) {
  console.log(q, (await db.query(q)).rows);
}
