import Link from "next/link";

export default function NotFound() {
  return (
    <section className="space-y-3">
      <h1 className="text-3xl font-semibold">Not found</h1>
      <p>There is no page at this address. The catalogs list every published index and volatility series.</p>
      <p className="flex gap-4">
        <Link href="/indices">Indices</Link>
        <Link href="/volatility">Volatility</Link>
        <Link href="/docs">Docs</Link>
      </p>
    </section>
  );
}
