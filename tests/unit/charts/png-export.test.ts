import { describe, expect, it } from "vitest";
import { wrapText } from "@/components/charts/png-export";

// A PNG's text lines are wrapped to the image's width, never squeezed into it: every line fits,
// no word is lost, and a word longer than the width is cut rather than overflowing.
const measure = (s: string) => s.length * 7; // 7 px a character

describe("PNG text wrapping", () => {
  it("wraps a title at spaces so every line fits the width, keeping every word in order", () => {
    const title =
      "Fed decision volatility: 2,026 published values (points over 30 days), last 90 days, with the uncertainty band";
    const lines = wrapText(measure, title, 210);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(measure(line)).toBeLessThanOrEqual(210);
    expect(lines.join(" ")).toBe(title);
  });

  it("keeps a line that fits as one line", () => {
    expect(wrapText(measure, "PMX-ELEC: Elections", 400)).toEqual(["PMX-ELEC: Elections"]);
  });

  it("cuts a word longer than the width into pieces that fit", () => {
    const lines = wrapText(measure, "https://example.com/a/very/long/address/without/spaces", 70);
    for (const line of lines) expect(measure(line)).toBeLessThanOrEqual(70);
    expect(lines.join("")).toBe("https://example.com/a/very/long/address/without/spaces");
  });
});
