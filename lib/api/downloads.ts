import "server-only";
import { ApiError } from "@/lib/api/errors";
import type { RawHandler } from "@/lib/api/pipeline";
import { bundleFile, latestManifest, monthManifest } from "@/lib/snapshots/read-bundles";
import { root } from "@/lib/root";

const json = (value: unknown) => ({ raw: { body: JSON.stringify(value, null, 2), contentType: "application/json; charset=utf-8" } });

/** /downloads/manifest.json, /downloads/{YYYY-MM}/manifest.json, /downloads/{YYYY-MM}/{file}.csv */
export const downloadsHandler: RawHandler = async ({ params }) => {
  const parts = (params.path ?? "").split("/").filter(Boolean);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "manifest.json")) return json(await latestManifest(await root().db()));
  if (parts.length === 2) {
    const [month, name] = parts as [string, string];
    if (name === "manifest.json") {
      const manifest = await monthManifest(await root().db(), month);
      if (manifest) return json(manifest);
    } else {
      const file = await bundleFile(await root().db(), month, name);
      if (file) {
        return {
          raw: {
            body: file.content,
            contentType: "text/csv; charset=utf-8",
            headers: { "Content-Disposition": `attachment; filename="${month}-${name}"`, ETag: `"${file.sha256}"`, Digest: `sha-256=${Buffer.from(file.sha256, "hex").toString("base64")}` },
          },
        };
      }
    }
  }
  throw new ApiError("not_found", { message: "No such bundle file. Start from /downloads/manifest.json." });
};
