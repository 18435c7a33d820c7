import { endpoints } from "@/lib/api/endpoints";
import { apiRoute } from "@/lib/api/pipeline";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiRoute(
  root,
  endpoints.indexLatest.path,
  endpoints.indexLatest.handler,
);
