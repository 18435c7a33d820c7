import { describe, expect, it } from "vitest";
import { backfillMessage } from "@/lib/site/backfill-notice";

describe("the backfill notice says hours done of the total and through which hour", () => {
  it.each([
    [
      { hoursDone: 48, hoursTotal: 2881, through: "2026-07-28T04:00:00.000Z" },
      1,
      "48 of 2,881 hours computed (1%), through 2026-07-28 04:00 UTC",
    ],
    [
      { hoursDone: 2881, hoursTotal: 2881, through: "2026-11-24T04:00:00.000Z" },
      100,
      "2,881 of 2,881 hours computed (100%), through 2026-11-24 04:00 UTC",
    ],
    [{ hoursDone: 0, hoursTotal: null, through: null }, null, "0 hours computed; no hour computed yet"],
  ])("%j", (p, pct, progress) => {
    expect(backfillMessage(p)).toEqual({ pct, progress });
  });
});
