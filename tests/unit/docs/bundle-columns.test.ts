import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { INDEX_LEVELS_COLUMNS } from "@/lib/snapshots/index-files";
import { VOLATILITY_HISTORY_COLUMNS, VOLATILITY_LEGS_COLUMNS } from "@/lib/snapshots/volatility-files";

// Rule: the file reference (/docs/downloads/bundle-files) lists every column the bundle writes.
const page = fs.readFileSync("content/docs/downloads/bundle-files.mdx", "utf8");

/** The first cells of the "volatility_history.csv columns" table: column names, with a "(3)" or "(4)" layout mark. */
function historyTableColumns(): string[] {
  const table = page.slice(
    page.indexOf("### volatility_history.csv columns"),
    page.indexOf("## Verifying the numbers"),
  );
  return [...table.matchAll(/^\s*\["([^"]+)",/gm)].flatMap((m) =>
    m[1]!
      .replace(/\s*\(\d\)$/, "")
      .split(",")
      .map((c) => c.trim()),
  );
}

/** The row of the bundle contents table that describes a file. */
const contentsRow = (file: string) => page.split("\n").find((l) => l.trimStart().startsWith(`["${file}",`)) ?? "";

describe("the bundle file reference lists the columns the bundles write", () => {
  it("every column of volatility_history.csv is in its table, in the file's order, history_fidelity_minutes before basis", () => {
    const documented = historyTableColumns();
    expect([...documented].sort()).toEqual([...VOLATILITY_HISTORY_COLUMNS].sort());
    expect(VOLATILITY_HISTORY_COLUMNS.slice(-2)).toEqual(["history_fidelity_minutes", "basis"]);
    expect(INDEX_LEVELS_COLUMNS.slice(-2)).toEqual(["history_fidelity_minutes", "basis"]);
  });

  it("the history fidelity of index levels and volatility legs is described where their files are", () => {
    for (const [file, columns] of [
      ["index_levels.csv", INDEX_LEVELS_COLUMNS],
      ["volatility_legs.csv", VOLATILITY_LEGS_COLUMNS],
    ] as const) {
      expect(columns).toContain("history_fidelity_minutes");
      expect(contentsRow(file)).toContain("`history_fidelity_minutes` (720");
    }
  });
});
