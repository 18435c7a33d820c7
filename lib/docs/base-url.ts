import { config } from "@/lib/config";
import { EXAMPLE_BASE_URL } from "./examples";

/** The address every docs example shows: the configured PUBLIC_BASE_URL. */
export function publicBaseUrl(): string {
  return config().baseUrl;
}

/** Docs sources and example JSON write EXAMPLE_BASE_URL; the rendered page shows PUBLIC_BASE_URL. */
export function withBaseUrl(text: string): string {
  return text.replaceAll(EXAMPLE_BASE_URL, publicBaseUrl());
}
