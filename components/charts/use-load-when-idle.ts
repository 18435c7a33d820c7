"use client";

import { useCallback, useEffect, useState } from "react";

/**
 * False in the server's HTML and at hydration; true once the browser is idle after it (or after
 * `timeoutMs` at the latest), or as soon as `want()` is called (the reader reached for the chart).
 */
export function useLoadWhenIdle(timeoutMs = 400): [boolean, () => void] {
  const [wanted, setWanted] = useState(false);
  const want = useCallback(() => setWanted(true), []);
  useEffect(() => {
    if (wanted) return;
    if (typeof window.requestIdleCallback === "function") {
      const id = window.requestIdleCallback(want, { timeout: timeoutMs });
      return () => window.cancelIdleCallback(id);
    }
    const id = window.setTimeout(want, 200);
    return () => window.clearTimeout(id);
  }, [wanted, want, timeoutMs]);
  return [wanted, want];
}
