import { unknownRoute } from "@/lib/api/pipeline";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = unknownRoute(root);
