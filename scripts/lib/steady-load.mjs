#!/usr/bin/env node
// @ts-check
// `node scripts/lib/steady-load.mjs URL RATE SECONDS KEYS_FILE`: requests at a steady RATE a
// second for SECONDS, the keys of KEYS_FILE (a JSON array) in turn as Bearer tokens; prints one
// line `STEADY {"sent","ok","non2xx","errors","p50","p90","p99","max"}` (ms) of those SECONDS.
// A first second at the same rate opens the connections and is not counted.
//
// Open loop: request n is due at start + n / RATE whether or not earlier answers came back, and
// its latency is counted from that due time, so a server that stalls is charged for every request
// that waited behind the stall (no coordinated omission). autocannon's `overallRate` is neither:
// each connection sends its share of a second back to back when the second starts, then waits,
// and its correction assumes 1 ms between requests. Run it as a process of its own (the bench
// pins it to the CPU beside the server's) so that its timers are not late behind other work.
import http from "node:http";
import fs from "node:fs";

const [url = "", rateText = "", secondsText = "", keysFile = ""] = process.argv.slice(2);
if (!url || !rateText || !secondsText || !keysFile) {
  throw new Error("usage: node scripts/lib/steady-load.mjs URL RATE SECONDS KEYS_FILE");
}
const rate = Number(rateText);
const warmUp = Math.round(rate);
const total = warmUp + Math.round(rate * Number(secondsText));
/** @type {string[]} */
const keys = JSON.parse(fs.readFileSync(keysFile, "utf8"));
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const gapMs = 1000 / rate;

/** @type {number[]} */
const latencies = [];
let ok = 0;
let non2xx = 0;
let errors = 0;
let settled = 0;
let sent = 0;

/** @param {number} due */
function fire(due) {
  const key = keys[sent % keys.length];
  const counted = sent >= warmUp; // the warm-up second is sent, not counted
  sent += 1;
  const done = () => {
    if (counted) latencies.push(performance.now() - due);
    settled += 1;
    if (settled === total) finish();
  };
  const req = http.get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
    res.resume();
    res.on("end", () => {
      if (counted) {
        if (res.statusCode === 200) ok += 1;
        else non2xx += 1;
      }
      done();
    });
  });
  req.on("error", () => {
    if (counted) errors += 1;
    done();
  });
}

const start = performance.now();
function tick() {
  const now = performance.now();
  while (sent < total && start + sent * gapMs <= now) fire(start + sent * gapMs);
  if (sent < total) setTimeout(tick, Math.max(0, start + sent * gapMs - performance.now()));
}

function finish() {
  const sorted = latencies.sort((a, b) => a - b);
  /** @param {number} q */
  const at = (q) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  const summary = { sent: sent - warmUp, ok, non2xx, errors, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
  console.log(`STEADY ${JSON.stringify(summary)}`);
  agent.destroy();
}

tick();
