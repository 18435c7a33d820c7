import { downloadsHandler } from "@/lib/api/downloads";
import { apiRoute } from "@/lib/api/pipeline";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute("/downloads", downloadsHandler);
