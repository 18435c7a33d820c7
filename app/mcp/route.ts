import { mcpRoute } from "@/lib/mcp/mcp-route";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = mcpRoute();
