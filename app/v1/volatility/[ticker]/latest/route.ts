import { endpoints } from "@/lib/api/endpoints";
import { apiRoute } from "@/lib/api/pipeline";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute(endpoints.volatilityLatest.path, endpoints.volatilityLatest.handler);
