import { config } from "@/lib/config";

export function downloadsPointer() {
  const base = config().baseUrl;
  return {
    downloadsUrl: `${base}/downloads/`,
    latestManifestUrl: `${base}/downloads/manifest.json`,
    license:
      "Free monthly point-in-time snapshot bundles for research and evaluation, with attribution; production, redistribution and commercial use need a separate license. Full terms: " +
      config().licenseUrl,
    notes:
      "One folder per calendar month (YYYY-MM) with CSV files and a manifest listing each file's bytes, SHA-256 and row count. Start automation from latestManifestUrl. Files need the same API key as /v1.",
  };
}
