import { unknownRoute } from "@/lib/api/pipeline";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = unknownRoute();
