import type { Metadata } from "next";

export const metadata: Metadata = {
  title: { default: "Developer portal", template: "%s · Developer portal · PM Benchmarks" },
  robots: { index: false, follow: false },
};

export default function PortalLayout({ children }: { children: React.ReactNode }) {
  return children;
}
