import type { EndpointName } from "@/lib/api/endpoint-table";

/**
 * The base address written in docs sources and example JSON. Pages render the configured
 * PUBLIC_BASE_URL in its place (lib/docs/base-url.ts), so every example shows one address.
 */
export const EXAMPLE_BASE_URL = "https://api.example.com";
export const EXAMPLE_REQUEST_ID = "0b8e5f0c-6a1d-4d7e-9c3b-2f61a4e8d905";

type QueryValue = string | number | boolean;

/**
 * One example request, written once: the curl, TypeScript and Python tabs are generated from it,
 * and a test runs all three against a server.
 */
export interface ApiExample {
  endpoint: EndpointName;
  ticker?: string;
  query?: Readonly<Record<string, QueryValue>>;
  /** TypeScript lines that use `result` (the client's { data, meta, quota, requestId }). */
  ts: string;
  /** Python lines that use `result` (the client's Result with .data, .meta, .quota, .request_id). */
  py: string;
  /** Imports the lines above need, beyond the client. */
  tsImports?: string;
  pyImports?: string;
}

const METHODS: Readonly<Record<EndpointName, { ts: string; py: string; path: (ticker: string) => string }>> = {
  service: { ts: "service", py: "service", path: () => "/v1" },
  indices: { ts: "indices", py: "indices", path: () => "/v1/indices" },
  indexLatest: { ts: "indexLatest", py: "index_latest", path: (t) => `/v1/indices/${t}/latest` },
  indexHistory: { ts: "indexHistory", py: "index_history", path: (t) => `/v1/indices/${t}/history` },
  indexReconstitutions: {
    ts: "reconstitutions",
    py: "reconstitutions",
    path: (t) => `/v1/indices/${t}/reconstitutions`,
  },
  volatility: { ts: "volatility", py: "volatility", path: () => "/v1/volatility" },
  volatilityLatest: { ts: "volatilityLatest", py: "volatility_latest", path: (t) => `/v1/volatility/${t}/latest` },
  volatilityHistory: { ts: "volatilityHistory", py: "volatility_history", path: (t) => `/v1/volatility/${t}/history` },
  downloads: { ts: "downloads", py: "downloads", path: () => "/v1/downloads" },
};

const snake = (name: string) => name.replaceAll(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const tsValue = (v: QueryValue) => (typeof v === "string" ? JSON.stringify(v) : String(v));
const pyValue = (v: QueryValue) =>
  typeof v === "string" ? JSON.stringify(v) : typeof v === "boolean" ? (v ? "True" : "False") : String(v);

export const API_EXAMPLES = {
  "service-index": {
    endpoint: "service",
    ts: `const { key, limits } = result.data;
console.log(key.prefix, \`\${key.remainingMinute}/\${key.limitMinute} this minute\`, \`\${key.remainingDay}/\${key.limitDay} today\`);
console.log("history window:", limits.historyMaxDays, "days");`,
    py: `key = result.data["key"]
print(key["prefix"], f"{key['remainingMinute']}/{key['limitMinute']} this minute", f"{key['remainingDay']}/{key['limitDay']} today")
print("history window:", result.data["limits"]["historyMaxDays"], "days")`,
  },
  indices: {
    endpoint: "indices",
    ts: `for (const index of result.data.indices) {
  console.log(index.ticker, index.publicStatus, index.lastComputedAt?.toISOString(), index.stale ? "stale" : "fresh");
}`,
    py: `for index in result.data["indices"]:
    print(index["ticker"], index["publicStatus"], index["lastComputedAt"], "stale" if index["stale"] else "fresh")`,
  },
  "index-latest": {
    endpoint: "indexLatest",
    ticker: "PMX-ELEC",
    ts: `const level = result.data;
// indexLevel is a Decimal and computedAt a Date (UTC)
console.log(level.ticker, level.indexLevel.toFixed(8), level.computedAt.toISOString(), \`revision \${level.revision}\`);`,
    py: `level = result.data
# indexLevel is a Decimal and computedAt an aware UTC datetime
print(level["ticker"], level["indexLevel"], level["computedAt"].isoformat(), f"revision {level['revision']}")`,
  },
  "index-history": {
    endpoint: "indexHistory",
    ticker: "PMX-ELEC",
    query: { start: "2026-11-15", interval: "1d" },
    ts: `const { points } = result.data;
console.log(result.meta.effectiveStart.toISOString(), "to", result.meta.effectiveEnd.toISOString(), result.meta.clamped ? "(clamped)" : "");
for (const p of points) console.log(p.t.toISOString(), p.indexLevel.toFixed(8));`,
    py: `print(result.meta["effectiveStart"], "to", result.meta["effectiveEnd"], "(clamped)" if result.meta["clamped"] else "")
for p in result.data["points"]:
    print(p["t"].isoformat(), p["indexLevel"])`,
  },
  reconstitutions: {
    endpoint: "indexReconstitutions",
    ticker: "PMX-ELEC",
    query: { limit: 3 },
    ts: `for (const e of result.data.events) console.log(e.completedAt.toISOString(), \`+\${e.addedMarketCount} markets\`, e.eventId);`,
    py: `for e in result.data["events"]:
    print(e["completedAt"].isoformat(), f"+{e['addedMarketCount']} markets", e["eventId"])`,
  },
  volatility: {
    endpoint: "volatility",
    ts: `for (const s of result.data.series) {
  // a headline is always quoted with its tenor
  console.log(s.ticker, \`\${s.headlinePts} pts at \${s.headlineTenorDays}d\`, s.status, s.lastComputedAt.toISOString());
}`,
    py: `for s in result.data["series"]:
    # a headline is always quoted with its tenor
    print(s["ticker"], f"{s['headlinePts']} pts at {s['headlineTenorDays']}d", s["status"], s["lastComputedAt"].isoformat())`,
  },
  "volatility-latest": {
    endpoint: "volatilityLatest",
    ticker: "PMV-FED",
    ts: `const { tick, published } = result.data;
// tick.computedAt is sent without "Z"; the client reads it as UTC
console.log(tick.status, tick.publicationState, tick.computedAt.toISOString(), \`\${tick.headlinePts} pts at \${tick.headlineTenorDays}d\`);
if (published) console.log("last published value:", published.headlinePts, "at", published.computedAt.toISOString());`,
    py: `tick = result.data["tick"]
published = result.data["published"]
# tick["computedAt"] is sent without "Z"; the client reads it as UTC
print(tick["status"], tick["publicationState"], tick["computedAt"].isoformat(), f"{tick['headlinePts']} pts at {tick['headlineTenorDays']}d")
if published is not None:
    print("last published value:", published["headlinePts"], "at", published["computedAt"].isoformat())`,
  },
  "volatility-history": {
    endpoint: "volatilityHistory",
    ticker: "PMV-FED",
    query: { limit: 3 },
    ts: `// newest first
for (const p of result.data.points) console.log(p.t.toISOString(), p.headlinePts, p.status, p.gateNames.join(","));`,
    py: `# newest first
for p in result.data["points"]:
    print(p["t"].isoformat(), p["headlinePts"], p["status"], ",".join(p["gateNames"]))`,
  },
  downloads: {
    endpoint: "downloads",
    ts: `console.log(result.data.latestManifestUrl);
console.log(result.data.license);`,
    py: `print(result.data["latestManifestUrl"])
print(result.data["license"])`,
  },
  "quickstart-decimals": {
    endpoint: "indexHistory",
    ticker: "PMX-ELEC",
    query: { interval: "1d" },
    ts: `const { points } = result.data;
const first = points[0]!.indexLevel;
const last = points.at(-1)!.indexLevel;
// Decimal arithmetic: no binary float ever touches a level
console.log(\`\${last.div(first).minus(1).times(100).toFixed(4)} % over \${points.length} days\`);`,
    py: `points = result.data["points"]
first, last = points[0]["indexLevel"], points[-1]["indexLevel"]
# Decimal arithmetic: no binary float ever touches a level
print(f"{(last / first - 1) * 100:.4f} % over {len(points)} days")`,
  },
} as const satisfies Readonly<Record<string, ApiExample>>;

export type ExampleId = keyof typeof API_EXAMPLES;

/** Walkthrough examples that are not one request: written per language, run by the same test. */
export const SCRIPT_EXAMPLES = {
  "walk-history": {
    curl: `# one request per window; the API serves the trailing 90 days, clamping older starts
for window in "2026-09-01 2026-10-01" "2026-10-01 2026-11-01" "2026-11-01 2026-12-01"; do
  set -- $window
  curl -sS "${EXAMPLE_BASE_URL}/v1/indices/PMX-ELEC/history?start=$1&end=$2&interval=1h" \\
    -H "Authorization: Bearer $PMB_API_KEY"
done`,
    ts: `import { PmbClient } from "@pm-benchmarks/client";

const client = new PmbClient({ baseUrl: "${EXAMPLE_BASE_URL}" });

// 30-day windows from start to now; a start older than 90 days is clamped by the API
const range = await client.indexHistoryRange("PMX-ELEC", { start: "2026-01-01", interval: "1h", windowDays: 30 });
console.log(range.points.length, "hourly levels in", range.requests, "requests; clamped:", range.clamped);
console.log("served from", range.effectiveStart?.toISOString());`,
    py: `from pmb_client import Client

client = Client(base_url="${EXAMPLE_BASE_URL}")

# 30-day windows from start to now; a start older than 90 days is clamped by the API
walk = client.index_history_range("PMX-ELEC", start="2026-01-01", interval="1h", window_days=30)
print(len(walk["points"]), "hourly levels in", walk["requests"], "requests; clamped:", walk["clamped"])
print("served from", walk["effective_start"].isoformat())`,
  },
  "errors-and-retries": {
    curl: `# -i shows the status, X-Request-Id and the X-RateLimit-* headers
curl -sS -i "${EXAMPLE_BASE_URL}/v1/indices/NO-SUCH-INDEX/latest" \\
  -H "Authorization: Bearer $PMB_API_KEY"`,
    ts: `import { NotFoundError, PmbClient, RateLimitError } from "@pm-benchmarks/client";

// 429, 500 and 503 are retried after Retry-After, waiting at most 60 s per retry
const client = new PmbClient({ baseUrl: "${EXAMPLE_BASE_URL}", maxRetries: 3, maxRetryWaitSeconds: 60 });

try {
  await client.indexLatest("NO-SUCH-INDEX");
} catch (error) {
  if (error instanceof NotFoundError) console.log(error.code, error.status, "request", error.requestId);
  else if (error instanceof RateLimitError) console.log("retry in", error.retryAfter, "s");
  else throw error;
}
console.log("quota left this minute:", client.quota?.remainingMinute);`,
    py: `from pmb_client import Client, NotFoundError, RateLimitError

# 429, 500 and 503 are retried after Retry-After, waiting at most 60 s per retry
client = Client(base_url="${EXAMPLE_BASE_URL}", max_retries=3, max_retry_wait=60)

try:
    client.index_latest("NO-SUCH-INDEX")
except NotFoundError as error:
    print(error.code, error.status, "request", error.request_id)
except RateLimitError as error:
    print("retry in", error.retry_after, "s")
print("quota left this minute:", client.quota.remaining_minute)`,
  },
  openapi: {
    curl: `curl -sS "${EXAMPLE_BASE_URL}/openapi.json" -o openapi.json -w "%{http_code} %{size_download} bytes\\n"`,
    ts: `// no key needed: the document is public
const res = await fetch("${EXAMPLE_BASE_URL}/openapi.json");
const doc = await res.json();
console.log(doc.openapi, Object.keys(doc.paths).length, "paths", Object.keys(doc.components.schemas).length, "schemas");`,
    py: `import json
import urllib.request

# no key needed: the document is public
with urllib.request.urlopen("${EXAMPLE_BASE_URL}/openapi.json") as res:
    doc = json.load(res)
print(doc["openapi"], len(doc["paths"]), "paths", len(doc["components"]["schemas"]), "schemas")`,
  },
  // Every published month as one archive into ./bundles (one request per month): downloaded,
  // checked against the latest manifest's archive SHA-256 and the month manifest's file SHA-256s,
  // unpacked to bundles/YYYY-MM/ (manifest.json included, as the verifiers read it), 429/503
  // waited out after Retry-After, and resumable: bundles/.YYYY-MM.sha256 marks a month done.
  "bundles-sync": {
    curl: `# needs curl, jq, unzip and sha256sum; curl --retry waits out a 429 or 503 for its Retry-After
set -euo pipefail
base="${EXAMPLE_BASE_URL}"
get() { # URL FILE: 200 or fail (no --fail: with it curl ignores Retry-After)
  code=$(curl -sS --retry 5 -H "Authorization: Bearer $PMB_API_KEY" -o "$2" -w "%{http_code}" "$1")
  [ "$code" = 200 ] || { echo "$1: HTTP $code" >&2; return 1; }
}
mkdir -p bundles && cd bundles
get "$base/downloads/manifest.json" latest.json
jq -r '.months[] | "\\(.month) \\(.archive.url) \\(.archive.sha256)"' latest.json | while read -r month url sha; do
  if [ "$(cat ".$month.sha256" 2>/dev/null)" = "$sha" ]; then continue; fi # fetched and verified before
  get "$url" "$month.zip"
  echo "$sha  $month.zip" | sha256sum -c --quiet
  rm -rf "$month" && unzip -q "$month.zip" && rm "$month.zip"
  (cd "$month" && jq -r '.files[] | "\\(.sha256)  \\(.name)"' manifest.json | sha256sum -c --quiet)
  echo "$sha" > ".$month.sha256"
  echo "fetched $month"
done
echo "$(jq '.months | length' latest.json) months verified in bundles/"`,
    ts: `// npm install fflate (unzips in memory); Node 18 or later
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { unzipSync } from "fflate";

const BASE_URL = "${EXAMPLE_BASE_URL}";
const headers = { Authorization: \`Bearer \${process.env.PMB_API_KEY}\` };
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** GET with up to 5 retries of a 429, 500 or 503, each after its Retry-After. */
async function get(url: string): Promise<Uint8Array> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { headers });
    if (res.ok) return new Uint8Array(await res.arrayBuffer());
    if (![429, 500, 503].includes(res.status) || attempt === 5) throw new Error(\`\${url}: HTTP \${res.status} \${await res.text()}\`);
    const wait = Number(res.headers.get("Retry-After") ?? 2 ** attempt);
    console.error(\`HTTP \${res.status}: waiting \${wait} s\`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

const root = "bundles";
mkdirSync(root, { recursive: true });
const latest = JSON.parse(new TextDecoder().decode(await get(\`\${BASE_URL}/downloads/manifest.json\`)));
for (const month of latest.months) {
  const done = join(root, \`.\${month.month}.sha256\`);
  if (existsSync(done) && readFileSync(done, "utf8") === month.archive.sha256) continue; // fetched and verified before
  const zip = await get(month.archive.url);
  if (sha256(zip) !== month.archive.sha256) throw new Error(\`\${month.month}: archive checksum mismatch, run again\`);
  const entries = unzipSync(zip);
  const manifest = JSON.parse(new TextDecoder().decode(entries[\`\${month.month}/manifest.json\`]));
  for (const f of manifest.files) {
    const bytes = entries[\`\${month.month}/\${f.name}\`];
    if (!bytes || sha256(bytes) !== f.sha256) throw new Error(\`\${month.month}/\${f.name}: checksum mismatch\`);
  }
  rmSync(join(root, month.month), { recursive: true, force: true });
  for (const [name, bytes] of Object.entries(entries)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), bytes);
  }
  writeFileSync(done, month.archive.sha256);
  console.log("fetched", month.month, month.archive.bytes, "bytes");
}
console.log(latest.months.length, "months verified in bundles/");`,
    py: `# Python 3.8 or later, standard library only
import hashlib
import io
import json
import os
import pathlib
import shutil
import time
import urllib.error
import urllib.request
import zipfile

BASE_URL = "${EXAMPLE_BASE_URL}"
HEADERS = {"Authorization": f"Bearer {os.environ['PMB_API_KEY']}"}
root = pathlib.Path("bundles")


def get(url, attempts=6):
    """GET with up to 5 retries of a 429, 500 or 503, each after its Retry-After."""
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=HEADERS), timeout=300) as res:
                return res.read()
        except urllib.error.HTTPError as error:
            if error.code not in (429, 500, 503) or attempt == attempts - 1:
                raise
            wait = int(error.headers.get("Retry-After") or 2 ** attempt)
            print(f"HTTP {error.code}: waiting {wait} s", flush=True)
            time.sleep(wait)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


root.mkdir(exist_ok=True)
latest = json.loads(get(f"{BASE_URL}/downloads/manifest.json"))
for month in latest["months"]:
    name, archive = month["month"], month["archive"]
    done = root / f".{name}.sha256"
    if done.exists() and done.read_text() == archive["sha256"]:
        continue  # fetched and verified before
    data = get(archive["url"])
    if sha256(data) != archive["sha256"]:
        raise SystemExit(f"{name}: archive checksum mismatch, run again")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        manifest = json.loads(z.read(f"{name}/manifest.json"))
        for f in manifest["files"]:
            if sha256(z.read(f"{name}/{f['name']}")) != f["sha256"]:
                raise SystemExit(f"{name}/{f['name']}: checksum mismatch, run again")
        shutil.rmtree(root / name, ignore_errors=True)
        z.extractall(root)  # bundles/YYYY-MM/: manifest.json and the CSV files
    done.write_text(archive["sha256"])
    print("fetched", name, archive["bytes"], "bytes")
print(len(latest["months"]), "months verified in bundles/")`,
  },
} as const satisfies Readonly<Record<string, ExampleCode>>;

export type ScriptId = keyof typeof SCRIPT_EXAMPLES;

export interface ExampleCode {
  curl: string;
  ts: string;
  py: string;
}

export function examplePath(example: ApiExample): string {
  const path = METHODS[example.endpoint].path(example.ticker ?? "");
  const query = new URLSearchParams(Object.entries(example.query ?? {}).map(([k, v]) => [k, String(v)])).toString();
  return query ? `${path}?${query}` : path;
}

/** The three tabs of an example, with `baseUrl` as the address. */
export function exampleCode(id: ExampleId | ScriptId, baseUrl = EXAMPLE_BASE_URL): ExampleCode {
  const code = id in SCRIPT_EXAMPLES ? SCRIPT_EXAMPLES[id as ScriptId] : generate(API_EXAMPLES[id as ExampleId]);
  const at = (text: string) => text.replaceAll(EXAMPLE_BASE_URL, baseUrl);
  return { curl: at(code.curl), ts: at(code.ts), py: at(code.py) };
}

function generate(example: ApiExample): ExampleCode {
  const method = METHODS[example.endpoint];
  const ticker = example.ticker ? JSON.stringify(example.ticker) : "";
  const query = Object.entries(example.query ?? {});
  const tsArgs = [ticker, query.length ? `{ ${query.map(([k, v]) => `${k}: ${tsValue(v)}`).join(", ")} }` : ""]
    .filter(Boolean)
    .join(", ");
  const pyArgs = [ticker, ...query.map(([k, v]) => `${snake(k)}=${pyValue(v)}`)].filter(Boolean).join(", ");
  const tsImport = example.tsImports ? `${example.tsImports}\n` : "";
  const pyImport = example.pyImports ? `${example.pyImports}\n` : "";
  return {
    curl: `curl -sS "${EXAMPLE_BASE_URL}${examplePath(example)}" \\\n  -H "Authorization: Bearer $PMB_API_KEY"`,
    ts: `${tsImport}import { PmbClient } from "@pm-benchmarks/client";

// the key comes from PMB_API_KEY
const client = new PmbClient({ baseUrl: "${EXAMPLE_BASE_URL}" });

const result = await client.${method.ts}(${tsArgs});
${example.ts}`,
    py: `${pyImport}from pmb_client import Client

client = Client(base_url="${EXAMPLE_BASE_URL}")  # the key comes from PMB_API_KEY

result = client.${method.py}(${pyArgs})
${example.py}`,
  };
}
