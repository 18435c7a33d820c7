import createMDX from "@next/mdx";
import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/api/security-headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // PGlite loads its wasm and data files from its own package directory at run time.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "pg",
    "ioredis",
    "nodemailer",
    "prom-client",
    "pino",
  ],
  async headers() {
    return [{ source: "/:path*", headers: [...SECURITY_HEADERS] }];
  },
};

// MDX for the docs site (content/docs/*.mdx, imported by app/docs); components come from mdx-components.tsx.
const withMDX = createMDX({});

export default withMDX(nextConfig);
