import "server-only";
import crypto from "node:crypto";
import { zipSync } from "fflate";
import type { Db } from "@/lib/db";
import { latestManifest, monthManifest } from "@/lib/snapshots/read-bundles";

/**
 * A month as one archive: `YYYY-MM/manifest.json` and each of the month's CSV files, as a zip
 * (unpacked by `unzip`, Python's zipfile, Windows' Explorer and `tar -xf`), into a folder named
 * after the month, so unpacking several into one directory gives the layout the verifiers read.
 *
 * The bytes are a function of the published month alone: entries in the manifest's order, each
 * dated the bundle's generation time, compressed by fflate's deflate (pure JavaScript, so every
 * instance and Node version writes the same bytes and the SHA-256 in the latest manifest holds
 * whichever instance serves the archive). Bundles are immutable, so each archive is built once per
 * process; its checksum is kept, its bytes only for the last few months asked for.
 */
export const archiveName = (month: string) => `${month}.zip`;

interface Archive {
  bytes: number;
  sha256: string;
}

const meta = new Map<string, Archive>();
const recent = new Map<string, Uint8Array>();
const RECENT_BYTES = 3;

/** The archive of a month (null when the month has no bundle). */
export async function monthArchive(prisma: Db, month: string): Promise<(Archive & { content: Uint8Array }) | null> {
  return build(prisma, month, true) as Promise<(Archive & { content: Uint8Array }) | null>;
}

async function build(
  prisma: Db,
  month: string,
  withContent: boolean,
): Promise<(Archive & { content?: Uint8Array }) | null> {
  const manifest = await monthManifest(prisma, month);
  if (!manifest) return null;
  const manifestText = JSON.stringify(manifest, null, 2);
  const key = `${month}|${crypto.createHash("sha256").update(manifestText).digest("hex")}`;
  const known = meta.get(key);
  if (known && !withContent) return known;
  const cached = recent.get(key);
  if (known && cached) return { ...known, content: cached };
  const files = await prisma.snapshotFile.findMany({ where: { month }, select: { name: true, content: true } });
  const byName = new Map(files.map((f) => [f.name, f.content]));
  // zip dates are local wall-clock fields: shifted so they read the UTC generation time on every host
  const generated = new Date(manifest.generatedAt);
  const mtime = new Date(generated.getTime() + generated.getTimezoneOffset() * 60_000);
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  entries[`${month}/manifest.json`] = [Buffer.from(manifestText, "utf8"), { mtime }];
  for (const f of manifest.files) {
    const content = byName.get(f.name);
    if (content === undefined) return null; // a manifest naming a file the database lacks is not served half
    entries[`${month}/${f.name}`] = [Buffer.from(content, "utf8"), { mtime }];
  }
  const content = zipSync(entries, { level: 6 });
  const archive = { bytes: content.length, sha256: crypto.createHash("sha256").update(content).digest("hex") };
  meta.set(key, archive);
  recent.set(key, content);
  while (recent.size > RECENT_BYTES) recent.delete(recent.keys().next().value!);
  return { ...archive, content };
}

/** The latest manifest, each month with its `archive` (name, url, bytes, sha256): one download for the whole month. */
export async function latestManifestWithArchives(prisma: Db, baseUrl: string) {
  const latest = await latestManifest(prisma);
  const months = [];
  for (const m of latest.months) {
    const a = await build(prisma, m.month, false);
    months.push(
      a
        ? {
            ...m,
            archive: {
              name: archiveName(m.month),
              url: `${baseUrl}/downloads/${archiveName(m.month)}`,
              bytes: a.bytes,
              sha256: a.sha256,
            },
          }
        : m,
    );
  }
  return { ...latest, months };
}
