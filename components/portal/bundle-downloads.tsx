import Link from "next/link";
import { formatCount } from "@/lib/portal/format";

export interface BundleMonth {
  month: string;
  files: Array<{ name: string; bytes?: number; rows?: number }>;
}

/**
 * The monthly snapshot bundles, downloadable with the session: each file is counted on the
 * account's oldest active key, exactly as a keyed /downloads request would be.
 */
export function BundleDownloads({ months, keyLabel }: { months: BundleMonth[]; keyLabel: string | null }) {
  return (
    <section
      aria-labelledby="bundles"
      className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm"
      data-testid="bundle-downloads"
    >
      <h2 id="bundles" className="font-semibold text-slate-900">
        Monthly data bundles
      </h2>
      <p className="mt-2 max-w-3xl text-sm text-slate-700">
        Point-in-time CSV snapshots of every closed month, with a manifest of checksums (
        <Link href="/docs/downloads">format</Link>). While you are signed in, a download here is counted on{" "}
        {keyLabel ? <span className="font-mono">{keyLabel}</span> : "your oldest active key"}, as if you had sent the
        key; automation uses <code className="font-mono text-xs">/downloads</code> with the key.
      </p>
      <p className="mt-2 max-w-3xl text-sm text-slate-700" data-testid="bundle-verifier">
        Verify what you downloaded with{" "}
        <a href="/tools/recompute_bundles.py" download>
          recompute_bundles.py
        </a>{" "}
        (one file, Python 3 standard library): unzip the months into one folder, then run{" "}
        <code className="font-mono text-xs [overflow-wrap:anywhere]">python3 recompute_bundles.py bundles</code>. It
        checks every file against its manifest and recomputes every published value (
        <Link href="/docs/downloads#verifying-a-month">how</Link>).
      </p>
      {!keyLabel ? (
        <p className="mt-3 text-sm text-slate-700" data-testid="bundles-need-key">
          Create a key first: downloads are metered on one of your keys.
        </p>
      ) : months.length === 0 ? (
        <p className="mt-3 text-sm text-slate-700">
          No month has closed since the data began; the first bundle appears after the month ends.
        </p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100 text-sm">
          {[...months].reverse().map((m) => (
            <li
              key={m.month}
              className="flex flex-col gap-1 py-2 sm:flex-row sm:items-baseline sm:gap-4"
              data-testid="bundle-month"
              data-month={m.month}
            >
              <span className="w-20 shrink-0 font-mono font-semibold text-slate-900">{m.month}</span>
              <span className="flex flex-wrap gap-x-3 gap-y-1">
                <a
                  href={`/portal/downloads/${m.month}.zip`}
                  download={`${m.month}.zip`}
                  className="font-semibold"
                  data-testid="bundle-archive"
                  aria-label={`${m.month}.zip (whole month): every file of ${m.month} and its manifest.json in one download, one request`}
                >
                  {m.month}.zip (whole month)
                </a>
                {m.files.map((f) => (
                  <a
                    key={f.name}
                    href={`/portal/downloads/${m.month}/${f.name}`}
                    download={`${m.month}-${f.name}`}
                    data-testid="bundle-file"
                    aria-label={`Download ${m.month} ${f.name}${typeof f.rows === "number" ? `, ${formatCount(f.rows)} rows` : ""}`}
                  >
                    {f.name}
                  </a>
                ))}
                <a
                  href={`/portal/downloads/${m.month}/manifest.json`}
                  className="text-slate-700"
                  aria-label={`manifest.json of ${m.month}`}
                >
                  manifest.json
                </a>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
