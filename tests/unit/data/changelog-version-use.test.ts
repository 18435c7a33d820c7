import { describe, expect, it } from "vitest";
import { versionUse } from "@/lib/data/changelog";

// Rule: the changelog names only public series (their pages answer); unlisted ones are counted, never named.
describe("changelog: which series a volatility version computed", () => {
  it("names the public series and counts the unlisted ones", () => {
    expect(versionUse(["PMV-ELEC", "PMV-FED"], 1)).toBe(
      "Computed with it: 2 public series (PMV-ELEC, PMV-FED) and 1 unlisted series.",
    );
  });
  it("says nothing of unlisted series when there are none", () => {
    expect(versionUse(["PMV-FED"], 0)).toBe("Computed with it: 1 public series (PMV-FED).");
  });
  it("a version used only by unlisted series names none", () => {
    expect(versionUse([], 2)).toBe("Computed with it: no public series and 2 unlisted series.");
  });
});
