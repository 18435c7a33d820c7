import { openApiDocument } from "@/lib/openapi/document";
import { config } from "@/lib/config";

export const dynamic = "force-dynamic";

export function GET() {
  return Response.json(
    openApiDocument(config().baseUrl, { licenseUrl: config().licenseUrl, termsUrl: config().termsUrl }),
    { headers: { "Cache-Control": "public, max-age=300" } },
  );
}
