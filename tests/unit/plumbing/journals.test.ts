import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createJournals, readLines } from "@/lib/plumbing/journal";

// Rule (lib/plumbing/journal.ts, Journals.written): what was appended is in the file when
// `written()` resolves, and the appends of one turn go out in one write per journal, however
// many answers wait for them.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-journals-"));
  dirs.push(d);
  return d;
};

describe("Journals.written", () => {
  test("resolves once the turn's appends are in the file, with one write for all its waiters", async () => {
    const journals = createJournals();
    const journal = await journals.open(tempDir(), "test");
    const writes: number[] = [];
    const writeSync = fs.writeSync;
    const spy = ((fd: number, ...rest: unknown[]) => {
      writes.push(fd);
      return (writeSync as (...a: unknown[]) => number)(fd, ...rest);
    }) as typeof fs.writeSync;
    fs.writeSync = spy;
    try {
      const answers = ["a", "b", "c"].map((name) => {
        journal.append(`${name}\n`);
        return journals.written().then(() => readLines(journal.current()));
      });
      expect(readLines(journal.current())).toEqual([]); // nothing written before the turn's write
      for (const seen of await Promise.all(answers)) expect(seen).toEqual(["a", "b", "c"]);
      expect(writes).toHaveLength(1);
      // Nothing appended since: resolves at once, writes nothing.
      await journals.written();
      expect(writes).toHaveLength(1);
    } finally {
      fs.writeSync = writeSync;
      journal.close();
    }
  });

  test("a write that fails rejects every waiter of that turn", async () => {
    const journals = createJournals();
    const journal = await journals.open(tempDir(), "test");
    const writeSync = fs.writeSync;
    fs.writeSync = (() => {
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    }) as typeof fs.writeSync;
    try {
      journal.append("a\n");
      const first = journals.written();
      const second = journals.written();
      await expect(first).rejects.toThrow(/ENOSPC/);
      await expect(second).rejects.toThrow(/ENOSPC/);
    } finally {
      fs.writeSync = writeSync;
      journal.close();
    }
  });
});
