/** The curl call that returns what a page shows, with the key left as `$PMB_API_KEY`. */
export function curlCommand(
  baseUrl: string,
  path: string,
  query: Record<string, string | number | undefined> = {},
): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  const qs = q.toString().replaceAll("%3A", ":");
  const url = `${baseUrl.replace(/\/+$/, "")}${path}${qs ? `?${qs}` : ""}`;
  return `curl -H "Authorization: Bearer $PMB_API_KEY" \\\n  "${url}"`;
}
