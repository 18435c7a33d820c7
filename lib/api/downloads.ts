import "server-only";
import { ApiError } from "@/lib/api/errors";
import type { RawHandler } from "@/lib/api/pipeline";
import { latestManifestWithArchives, monthArchive } from "@/lib/snapshots/archive";
import { bundleFile, monthManifest } from "@/lib/snapshots/read-bundles";

const json = (value: unknown) => ({
  raw: { body: JSON.stringify(value, null, 2), contentType: "application/json; charset=utf-8" },
});
const ARCHIVE = /^(\d{4}-\d{2})\.zip$/;
const digest = (sha256: string) => `sha-256=${Buffer.from(sha256, "hex").toString("base64")}`;

/** /downloads/manifest.json, /downloads/{YYYY-MM}.zip (the whole month), /downloads/{YYYY-MM}/manifest.json, /downloads/{YYYY-MM}/{file}.csv */
export const downloadsHandler: RawHandler = async ({ services, params }) => {
  const db = await services.db();
  const parts = (params.path ?? "").split("/").filter(Boolean);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "manifest.json"))
    return json(await latestManifestWithArchives(db, services.config.baseUrl));
  const archiveMonth = parts.length === 1 ? ARCHIVE.exec(parts[0]!)?.[1] : undefined;
  if (archiveMonth) {
    const archive = await monthArchive(db, archiveMonth);
    if (archive) {
      return {
        raw: {
          body: archive.content,
          contentType: "application/zip",
          headers: {
            "Content-Disposition": `attachment; filename="${archiveMonth}.zip"`,
            ETag: `"${archive.sha256}"`,
            Digest: digest(archive.sha256),
          },
        },
      };
    }
  }
  if (parts.length === 2) {
    const [month, name] = parts as [string, string];
    if (name === "manifest.json") {
      const manifest = await monthManifest(db, month);
      if (manifest) return json(manifest);
    } else {
      const file = await bundleFile(db, month, name);
      if (file) {
        return {
          raw: {
            body: file.content,
            contentType: "text/csv; charset=utf-8",
            headers: {
              "Content-Disposition": `attachment; filename="${month}-${name}"`,
              ETag: `"${file.sha256}"`,
              Digest: digest(file.sha256),
            },
          },
        };
      }
    }
  }
  throw new ApiError("not_found", { message: "No such bundle file. Start from /downloads/manifest.json." });
};
