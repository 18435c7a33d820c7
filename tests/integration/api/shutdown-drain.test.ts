import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newKey, ownServer } from "../support/api";
import type { RunningServer } from "../support/server";
import { waitFor } from "../../support/wait-for";

// SIGTERM drains (lib/server/drain.ts): the server stops accepting, answers every request under
// way and every request still arriving on an open connection with `Connection: close`, closes
// idle keep-alive connections, and exits within SHUTDOWN_TIMEOUT_MS, cutting what is still busy
// then. Real signals, real keep-alive clients: a client never sees a reset, only a refused
// new connection once its last answer told it to go.

const SHUTDOWN_TIMEOUT_MS = 4000;
let server: RunningServer;
let key: string;
/** Answers the busy clients have had. */
let served = 0;
let servedAfterStop = 0;

beforeAll(async () => {
  server = await ownServer("it_drain", { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
  key = (await newKey({ limitMinute: 1_000_000, limitDay: 10_000_000 })).key;
}, 200_000);

afterAll(async () => {
  await server?.stop("SIGKILL");
});

interface Answer {
  status: number;
  connection: string | undefined;
}

function get(agent: http.Agent, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port: server.port, path, agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/** A keep-alive client sending requests back to back until one fails; what it got and how it ended. */
async function busyClient(index: number, stopped: () => boolean) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Array<Answer & { afterStop: boolean }> = [];
  let error: NodeJS.ErrnoException | null = null;
  for (let i = 0; ; i++) {
    try {
      // The /v1 front's answers and Next's, alternately.
      const path = (index + i) % 2 === 0 ? "/v1/indices" : "/livez";
      const answer = await get(agent, path, { Authorization: `Bearer ${key}` });
      answers.push({ ...answer, afterStop: stopped() });
      served++;
      if (stopped()) servedAfterStop++;
    } catch (caught) {
      error = caught as NodeJS.ErrnoException;
      break;
    }
  }
  agent.destroy();
  return { answers, error };
}

/** A raw request whose head and first body bytes are sent now; `finish` sends the rest. */
function slowPost(bodyLength: number): Promise<{ socket: net.Socket; answer: Promise<string>; finish: () => void }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1", () => {
      const body = "x".repeat(bodyLength);
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${bodyLength}\r\n\r\n${body.slice(0, 5)}`,
      );
      const chunks: Buffer[] = [];
      socket.on("data", (c) => chunks.push(c));
      const answer = new Promise<string>((done) =>
        socket.on("close", () => done(Buffer.concat(chunks).toString("latin1"))),
      );
      resolve({ socket, answer, finish: () => socket.write(body.slice(5)) });
    });
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

describe("SIGTERM drains", () => {
  it("answers what is under way with Connection: close, closes idle keep-alive connections, resets no client, exits within SHUTDOWN_TIMEOUT_MS", async () => {
    // An idle keep-alive connection: one answer, then nothing.
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(idleAgent, "/livez")).status).toBe(200);
    let idleClosedByServer = false;
    for (const sockets of Object.values(idleAgent.freeSockets))
      for (const s of sockets ?? []) s.once("close", () => (idleClosedByServer = true));

    // A request whose body is still arriving when the signal comes, and one whose body never ends.
    const slow = await slowPost(10);
    const stuck = await slowPost(10);

    let stoppedAt = 0;
    const stopped = () => stoppedAt > 0;
    const clients = Array.from({ length: 12 }, (_, i) => busyClient(i, stopped));
    // Traffic under way before the signal: some answers given.
    await waitFor("50 answers before the signal", () => served >= 50, { timeoutMs: 30_000 });
    const exited = new Promise<number | null>((resolve) => server.process.once("exit", (code) => resolve(code)));
    stoppedAt = performance.now();
    server.process.kill("SIGTERM");
    // The slow request's body ends while the server drains: once it has answered after the signal.
    void waitFor("an answer given while draining", () => servedAfterStop > 0, {
      timeoutMs: SHUTDOWN_TIMEOUT_MS,
      intervalMs: 20,
    }).then(slow.finish, slow.finish);

    const results = await Promise.all(clients);
    const code = await exited;
    const tookMs = performance.now() - stoppedAt;

    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 1500);
    for (const { answers, error } of results) {
      // The only failure a client meets is a refused new connection, after an answer that said
      // Connection: close: never a reset, a hang-up or a broken pipe on a request it had sent.
      expect(error?.code, String(error)).toBe("ECONNREFUSED");
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.at(-1)!.connection).toBe("close");
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    expect(results.some(({ answers }) => answers.some((a) => a.afterStop))).toBe(true);
    expect(idleClosedByServer).toBe(true);

    const slowAnswer = await slow.answer;
    expect(slowAnswer).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(slowAnswer).toMatch(/\r\nConnection: close\r\n/i);
    // The request whose body never ended was cut at the bound, and the log says so in one line.
    expect(await stuck.answer).toBe("");
    expect(server.output()).toMatch(/1 connection\(s\) still busy after \d+ ms were cut/);
    idleAgent.destroy();
  }, 60_000);
});
