import type { Metadata, Viewport } from "next";
import { SiteFooter } from "@/components/site-footer";
import { SiteHeader } from "@/components/site-header";
import { config } from "@/lib/config";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "PM Benchmarks", template: "%s · PM Benchmarks" },
  description: "Rules-based benchmark indices and volatility series for prediction markets.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col">
        <SiteHeader />
        <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-8">{children}</main>
        <SiteFooter attribution={config().ATTRIBUTION} />
      </body>
    </html>
  );
}
