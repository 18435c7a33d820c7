import { mcpRoute } from "@/lib/mcp/mcp-route";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = mcpRoute(root);
