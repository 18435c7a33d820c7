import { publicBaseUrl } from "@/lib/docs/base-url";
import { INLINE_CODE_CLASS } from "./inline";

/** The API's base address (PUBLIC_BASE_URL), the one address every example on these pages uses. */
export function BaseUrl() {
  return <code className={INLINE_CODE_CLASS}>{publicBaseUrl()}</code>;
}
