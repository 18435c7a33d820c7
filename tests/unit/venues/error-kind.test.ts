import { describe, expect, test } from "vitest";
import { ApiError, isApiError } from "@/lib/api/errors";
import { InvalidWindowError, isInvalidWindowError } from "@/lib/data/window";
import { hasErrorKind } from "@/lib/plumbing/error-kind";
import { isVenueError, VenueError } from "@/lib/venues/http";

// Rule (lib/plumbing/error-kind.ts): an error crossing a module boundary is recognised by its
// `kind`, so a copy of its class (the production build bundles one per chunk) is recognised too;
// `instanceof` is not. The built server's own test: tests/integration/api/refused-batch.test.ts.
describe("errors are recognised by their kind, not their class", () => {
  // what another chunk's copy of the class makes: the same shape, another constructor
  class VenueErrorCopy extends Error {
    readonly kind = "VenueError" as const;
    constructor(
      readonly url: string,
      readonly reason: string,
      readonly status: number | null,
    ) {
      super(`${url}: ${reason}`);
    }
  }

  test("a VenueError of another copy of the class: instanceof is false, the guard is true", () => {
    const copy = new VenueErrorCopy("u", "HTTP 400", 400);
    expect(copy instanceof VenueError).toBe(false);
    expect(isVenueError(copy)).toBe(true);
    expect(isVenueError(new VenueError("u", "HTTP 400", 400))).toBe(true);
  });

  test("errors of other kinds, plain errors and non-errors are not taken for one", () => {
    expect(isVenueError(new Error("HTTP 400"))).toBe(false);
    expect(isVenueError({ kind: "ApiError" })).toBe(false);
    expect(isVenueError(null)).toBe(false);
    expect(isVenueError("VenueError")).toBe(false);
    expect(isApiError(new ApiError("not_found"))).toBe(true);
    expect(isApiError(new VenueError("u", "x"))).toBe(false);
    expect(isInvalidWindowError(new InvalidWindowError(new Date(1), new Date(0)))).toBe(true);
    expect(hasErrorKind(Object.assign(new Error("x"), { kind: "KeyError" }), "KeyError")).toBe(true);
  });
});
