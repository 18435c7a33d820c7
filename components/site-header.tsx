import Link from "next/link";

const nav = [
  { href: "/indices", label: "Indices" },
  { href: "/volatility", label: "Volatility" },
  { href: "/docs", label: "Docs" },
  { href: "/portal", label: "Portal" },
];

export function SiteHeader() {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <Link href="/" className="font-semibold tracking-tight text-slate-900 no-underline">
          PM Benchmarks
        </Link>
        <nav aria-label="Main">
          <ul className="flex flex-wrap gap-4 text-sm">
            {nav.map((item) => (
              <li key={item.href}>
                <Link href={item.href} className="text-slate-700 no-underline hover:text-slate-900 hover:underline">
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </header>
  );
}
