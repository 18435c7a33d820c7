import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createMemoryStore, DAY_MS, MINUTE_MS } from "@/lib/ratelimit";
import { formatLine, parseLine, replayInto, startRateLimitJournal } from "@/lib/ratelimit/memory-store";
import { createJournals, readLines } from "@/lib/plumbing/journal";
import { isLocked, tryLock } from "@/lib/plumbing/kernel-lock";

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-journal-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Runs the fixture in its own process, waits for it to journal, then kills it with SIGKILL. */
async function journalInChildThenKill(dataDir: string, key: string, count: number, limitDay: number): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "tests/unit/ratelimit/fixtures/journal-child.ts",
      dataDir,
      key,
      String(count),
      String(limitDay),
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const admitted = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /admitted (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`child exited ${code}: ${err}`)));
  });
  await new Promise<void>((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
  return admitted;
}

describe("rate-limit journal", () => {
  test("a line round-trips any key text; malformed lines are refused", () => {
    const key = "addr:2001:db8::1 %\n\u00e9";
    expect(parseLine(formatLine(key, DAY_MS, [1, 2, 3]).trimEnd())).toEqual({ key, spanMs: DAY_MS, times: [1, 2, 3] });
    expect(parseLine("nonsense")).toBeNull();
    expect(parseLine("0 k 1")).toBeNull();
    expect(parseLine(`${DAY_MS} %E0%A4%A 1`)).toBeNull();
  });

  test("a torn last line (a crash mid-write) is skipped, the complete ones are read", () => {
    const file = path.join(tempDir(), "x.jnl");
    fs.writeFileSync(file, `${formatLine("a", MINUTE_MS, [5])}${formatLine("b", MINUTE_MS, [6])}${DAY_MS} c 7`);
    expect(readLines(file)).toHaveLength(2);
  });

  test("windows survive a SIGKILL of the process that held them: the day limit stays spent", async () => {
    const dataDir = tempDir();
    const admitted = await journalInChildThenKill(dataDir, "k1", 7, 5);
    expect(admitted).toBe(5);
    const store = createMemoryStore();
    const journal = await startRateLimitJournal(store, dataDir, { journals: createJournals() });
    try {
      const decision = await store.peek("k1", { minute: 1_000, day: 5 }, Date.now());
      expect(decision.allowed).toBe(false);
      expect(decision.limited).toBe("day");
      expect(decision.remainingDay).toBe(0);
      // The dead process's file was folded into this one's and removed.
      expect(fs.readdirSync(path.join(dataDir, "journal"))).toHaveLength(1);
    } finally {
      journal.close();
    }
  });

  test("replay keeps only what still counts, and a replayed store journals on", () => {
    const now = 1_700_000_000_000;
    const file = path.join(tempDir(), "r.jnl");
    fs.writeFileSync(
      file,
      formatLine("key:old", DAY_MS, [now - DAY_MS - 1, now - DAY_MS + 10, now - 5]) +
        formatLine("addr:x", MINUTE_MS, [now - MINUTE_MS, now - 1]),
    );
    const store = createMemoryStore();
    expect(replayInto(store, [file], now)).toBe(3);
    const entries = new Map(store.entries(now).map((e) => [e.key, e.times]));
    expect(entries.get("key:old")).toEqual([now - DAY_MS + 10, now - 5]);
    expect(entries.get("addr:x")).toEqual([now - 1]);
  });

  test("a busy key's window (one line of 300,000 admissions) replays whole", () => {
    const now = 1_700_000_000_000;
    const file = path.join(tempDir(), "busy.jnl");
    const times = Array.from({ length: 300_000 }, (_, i) => now - DAY_MS + 1 + i * 100);
    fs.writeFileSync(file, formatLine("key:busy", DAY_MS, times));
    const store = createMemoryStore();
    expect(replayInto(store, [file], now)).toBe(300_000);
    expect(store.entries(now).find((e) => e.key === "key:busy")?.times).toHaveLength(300_000);
  });

  test("compaction keeps the journal near its live content", async () => {
    const dataDir = tempDir();
    let journal: Awaited<ReturnType<typeof startRateLimitJournal>> | null = null;
    const store = createMemoryStore({ onRecord: (k, at, span) => journal?.record(k, at, span) });
    journal = await startRateLimitJournal(store, dataDir, { journals: createJournals() });
    const now = Date.now();
    // 60 000 admissions on 3 keys whose minute window holds at most 50 each.
    for (let i = 0; i < 60_000; i++) await store.hit(`addr:${i % 3}`, [{ ms: MINUTE_MS, limit: 50 }], now + i * 10);
    const files = fs.readdirSync(path.join(dataDir, "journal"));
    expect(files).toHaveLength(1);
    expect(fs.statSync(path.join(dataDir, "journal", files[0]!)).size).toBeLessThan(1_500_000);
    journal.close();
  });
});

describe("compacting a large window", () => {
  test("runs a chunk per event-loop turn, keeps the old file until the snapshot is written, and loses nothing", async () => {
    const dataDir = tempDir();
    const dir = path.join(dataDir, "journal");
    let journal: Awaited<ReturnType<typeof startRateLimitJournal>> | null = null;
    const store = createMemoryStore({ onRecord: (k, at, span) => journal?.record(k, at, span) });
    journal = await startRateLimitJournal(store, dataDir, { journals: createJournals() });
    const now = Date.now();
    const window = [{ ms: DAY_MS, limit: 10_000_000 }];
    // 200,000 admissions in one key's day window, in one turn: the journal passes 1 MB after
    // about 35,000 and compaction starts, with a snapshot larger than one chunk.
    for (let i = 0; i < 200_000; i++) void store.hit("key:busy", window, now - 200_000 + i);
    const during = fs.readdirSync(dir);
    expect(during).toHaveLength(2); // the old file and the new one: the snapshot is not written yet
    for (let turns = 0; fs.readdirSync(dir).length > 1 && turns < 1_000; turns++)
      await new Promise((r) => setImmediate(r));
    expect(fs.readdirSync(dir)).toHaveLength(1);
    journal.close();
    // What a restart would read: every admission, none lost (and none counted twice here).
    const replayed = createMemoryStore();
    expect(
      replayInto(
        replayed,
        fs.readdirSync(dir).map((f) => path.join(dir, f)),
        now,
      ),
    ).toBe(200_000);
  });
});

describe("kernel lock", () => {
  test("held while its holder lives, free the moment it is killed", async () => {
    const name = `test-${Math.random()}`;
    const child = spawn(
      process.execPath,
      [
        "-e",
        `require("net").createServer().listen("\\0pmb-lock-" + require("crypto").createHash("sha256").update(${JSON.stringify(name)}).digest("hex").slice(0, 32), () => console.log("held"))`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    expect(await isLocked(name)).toBe(true);
    expect(await tryLock(name)).toBeNull();
    child.kill("SIGKILL");
    await new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const lock = await tryLock(name);
    expect(lock).not.toBeNull();
    expect(await isLocked(name)).toBe(true);
    await lock!.release();
    expect(await isLocked(name)).toBe(false);
  });
});
