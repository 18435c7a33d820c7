import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Data license" };

export default function LicensePage() {
  return (
    <article className="max-w-3xl space-y-4">
      <h1 className="text-3xl font-semibold">Data license</h1>
      <p>
        Index levels, volatility values and the monthly snapshot bundles may be used for personal research and internal
        evaluation free of charge, provided the attribution line accompanies anything published from them.
      </p>
      <p>
        Production use, redistribution, derived products and commercial use need a separate written license.{" "}
        <Link href="/portal/license" data-testid="license-request-link">
          Request a commercial license in the portal
        </Link>{" "}
        (sign in with your work e-mail); we confirm by mail and reply with terms.
      </p>
      <p>
        The snapshot bundles are point-in-time: a published month is never rewritten; restatements appear in later
        months.
      </p>
    </article>
  );
}
