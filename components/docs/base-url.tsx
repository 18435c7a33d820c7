"use client";

import { useSyncExternalStore } from "react";
import { INLINE_CODE_CLASS } from "./inline";

const noop = () => () => {};

/** The address this site is served from (the API's base address), once the page is in a browser. */
export function BaseUrl() {
  const origin = useSyncExternalStore(
    noop,
    () => window.location.origin,
    () => null,
  );
  return <code className={INLINE_CODE_CLASS}>{origin ?? "https://<this host>"}</code>;
}
