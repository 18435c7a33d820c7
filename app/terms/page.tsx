import type { Metadata } from "next";

export const metadata: Metadata = { title: "Terms of use" };

export default function TermsPage() {
  return (
    <article className="prose max-w-3xl space-y-4">
      <h1 className="text-3xl font-semibold">Terms of use</h1>
      <p>
        The API, the MCP server, the website and the snapshot bundles are provided for information. Benchmark values are
        computed by published rules from prediction-market prices and are not investment advice.
      </p>
      <h2 className="text-xl font-semibold">Keys and fair use</h2>
      <ul className="list-disc pl-6">
        <li>
          Keys are personal to an account and not transferable. Keep them on your servers; never ship them to browsers.
        </li>
        <li>
          Each key has a per-minute and a per-day limit. Spreading requests over several keys or accounts to exceed the
          limits is prohibited.
        </li>
        <li>Calls through the MCP server count against the same limits as direct calls.</li>
      </ul>
      <h2 className="text-xl font-semibold">Attribution and redistribution</h2>
      <p>
        Anything published from the data must carry the attribution line that every response includes in
        <code> meta.attribution</code>. Production use, redistribution and commercial use need a separate license.
      </p>
      <h2 className="text-xl font-semibold">Changes and restatements</h2>
      <p>
        Methodology changes are announced in advance in the docs. Corrected values are republished with an incremented
        <code> revision</code>; first-published values stay in the snapshot bundles.
      </p>
    </article>
  );
}
