import type { MetadataRoute } from "next";
import { config } from "@/lib/config";

// /robots.txt: the public pages may be crawled; the account, operator and development pages and
// the keyed API may not. The sitemap lists the public pages.
export const dynamic = "force-dynamic";

export default function robots(): MetadataRoute.Robots {
  return {
    rules: { userAgent: "*", allow: "/", disallow: ["/portal", "/operator", "/dev", "/api", "/v1"] },
    sitemap: `${config().baseUrl}/sitemap.xml`,
  };
}
