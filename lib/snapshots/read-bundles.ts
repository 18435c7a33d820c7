import "server-only";
import { config } from "@/lib/config";
import type { Db } from "@/lib/db";
import { SCHEMA_VERSION, type MonthManifest } from "@/lib/snapshots/build-bundles";
import { iso6 } from "@/lib/time-format";

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const FILE = /^[a-z_]+\.csv$/;

/** The latest manifest: every month with its files, URLs and checksums. */
export async function latestManifest(prisma: Db) {
  const c = config();
  const bundles = await prisma.snapshotBundle.findMany({
    orderBy: { month: "asc" },
    select: { month: true, manifest: true },
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    license: c.licenseUrl,
    attribution: c.ATTRIBUTION,
    generatedAt: new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z"),
    months: bundles.map((b) => {
      const m = b.manifest as unknown as MonthManifest;
      return {
        month: b.month,
        // months built before a layout change keep their own version
        schemaVersion: Number(m.schemaVersion),
        manifestUrl: `${c.baseUrl}/downloads/${b.month}/manifest.json`,
        files: m.files.map((f) => ({ ...f, url: `${c.baseUrl}/downloads/${b.month}/${f.name}` })),
      };
    }),
  };
}

/** A month's manifest with each file's download address; `schemaVersion` is an integer (older bundles stored it as text). */
export async function monthManifest(
  prisma: Db,
  month: string,
): Promise<(MonthManifest & { files: Array<MonthManifest["files"][number] & { url: string }> }) | null> {
  if (!MONTH.test(month)) return null;
  const b = await prisma.snapshotBundle.findUnique({ where: { month }, select: { manifest: true } });
  if (!b) return null;
  const m = b.manifest as unknown as MonthManifest;
  const base = config().baseUrl;
  return {
    ...m,
    schemaVersion: Number(m.schemaVersion),
    // manifests built before every timestamp carried microseconds are served in today's format
    ...(m.catalogs ? { catalogs: m.catalogs.map((c) => ({ ...c, appliedAt: iso6(new Date(c.appliedAt)) })) } : {}),
    files: m.files.map((f) => ({ ...f, url: `${base}/downloads/${month}/${f.name}` })),
  };
}

export async function bundleFile(
  prisma: Db,
  month: string,
  name: string,
): Promise<{ content: Uint8Array; sha256: string } | null> {
  if (!MONTH.test(month) || !FILE.test(name)) return null;
  const f = await prisma.snapshotFile.findUnique({
    where: { month_name: { month, name } },
    select: { content: true, sha256: true },
  });
  return f ? { content: new Uint8Array(Buffer.from(f.content, "utf8")), sha256: f.sha256 } : null;
}
