import type { Metadata, Viewport } from "next";
import { SiteFooter } from "@/components/site-footer";
import { SiteHeader } from "@/components/site-header";
import { config } from "@/lib/config";
import "./globals.css";

export function generateMetadata(): Metadata {
  return {
    // Absolute URLs for the social card (app/opengraph-image.tsx) and the icon.
    metadataBase: new URL(config().baseUrl),
    title: { default: "PM Benchmarks", template: "%s · PM Benchmarks" },
    description: "Rules-based benchmark indices and volatility series for prediction markets.",
    openGraph: { siteName: "PM Benchmarks", type: "website" },
    twitter: { card: "summary_large_image" },
  };
}

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col">
        <a
          href="#main"
          className="sr-only rounded-md bg-slate-900 px-4 py-2 font-medium text-white! focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
          data-testid="skip-link"
        >
          Skip to content
        </a>
        <SiteHeader />
        <main id="main" tabIndex={-1} className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 focus:outline-none">
          {children}
        </main>
        <SiteFooter attribution={config().ATTRIBUTION} />
      </body>
    </html>
  );
}
