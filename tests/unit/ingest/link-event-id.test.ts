import { describe, expect, test } from "vitest";
import { linkEventId } from "@/lib/ingest/engine-hour";

// Rule: a chain link's event id is named by its index and hour, so the same history computed in
// any number of chunks (or again in another database) publishes the same ids and the same bundle bytes.
describe("chain-link event ids", () => {
  test("a UUID (version 5 layout) that depends only on the ticker and the hour", () => {
    const id = linkEventId("PMX-BTCQ", new Date("2026-08-06T00:00:00Z"));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(linkEventId("PMX-BTCQ", "2026-08-06T00:00:00.000Z")).toBe(id);
    expect(linkEventId("PMX-BTCQ", new Date("2026-08-06T01:00:00Z"))).not.toBe(id);
    expect(linkEventId("PMX-ELEC", new Date("2026-08-06T00:00:00Z"))).not.toBe(id);
  });
});
