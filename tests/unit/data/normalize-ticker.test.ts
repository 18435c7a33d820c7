import { describe, expect, it } from "vitest";
import { normalizeTicker } from "@/lib/data/indices";

// A ticker as typed in a path: case-insensitive, percent-decoding applied, and only the ticker
// alphabet reaches the database.
describe("normalizeTicker", () => {
  it.each<[string, string | null]>([
    ["PMX-ELEC", "PMX-ELEC"],
    ["pmx-elec", "PMX-ELEC"],
    [" pmx-elec ", "PMX-ELEC"],
    ["%50MX-ELEC", "PMX-ELEC"],
    ["pmx%2Eelec", "PMX.ELEC"],
    ["%E0%A4%A", null],
    ["100%", null],
    ["a/b", null],
    ["-PMX", null],
    ["", null],
    ["A".repeat(64), "A".repeat(64)],
    ["A".repeat(65), null],
  ])("%j", (raw, expected) => {
    expect(normalizeTicker(raw)).toBe(expected);
  });
});
