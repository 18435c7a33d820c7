import { describe, expect, test } from "vitest";
import { curlCommand } from "@/lib/site/api-call";
import { formatPts, headlineText, tenorText } from "@/lib/site/format";
import { formatUtc, parseApiTime } from "@/lib/site/time";

describe("a volatility value always carries its tenor", () => {
  test.each([
    [12.344999, 30, "12.34 pts over 30 days"],
    [40.164896, 30, "40.16 pts over 30 days"],
    [0, 7, "0.00 pts over 7 days"],
    [5.5, 1, "5.50 pts over 1 day"],
  ])("%d at %d days -> %s", (pts, tenor, text) => {
    expect(headlineText(pts, tenor)).toBe(text);
  });

  test("tenor words", () => {
    expect(tenorText(90)).toBe("90 days");
    expect(formatPts(28.480967)).toBe("28.48");
  });
});

describe("API timestamps", () => {
  test.each([
    ["2026-11-21T13:00:00.000000Z", "2026-11-21 13:00 UTC"],
    // tick.computedAt has no Z: it is UTC all the same
    ["2026-11-21T13:00:00.000000", "2026-11-21 13:00 UTC"],
    ["2026-11-21T13:00:00Z", "2026-11-21 13:00 UTC"],
  ])("%s -> %s", (iso, text) => {
    expect(formatUtc(iso)).toBe(text);
    expect(parseApiTime(iso).toISOString()).toBe("2026-11-21T13:00:00.000Z");
  });
});

describe("copyable API call", () => {
  test("names the key variable, never a key, and keeps the window readable", () => {
    const cmd = curlCommand("https://pmb.example/", "/v1/indices/PMX-ELEC/history", {
      interval: "1d",
      start: "2026-11-15T01:00:00Z",
      end: undefined,
    });
    expect(cmd).toBe(
      'curl -H "Authorization: Bearer $PMB_API_KEY" \\\n  "https://pmb.example/v1/indices/PMX-ELEC/history?interval=1d&start=2026-11-15T01:00:00Z"',
    );
  });
});
