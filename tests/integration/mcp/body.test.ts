import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newKey, ownServer } from "../support/api";
import type { RunningServer } from "../support/server";
import { waitFor } from "../../support/wait-for";

// The /mcp request body, read as it arrives: past 4 MB the read stops with 413 (chunked or not)
// instead of holding the whole body; a client that drops its request mid-body is no database
// outage (lib/db/unavailable.ts); tools/call arguments that are no object are -32602 with a
// readable message. A server of this file's own, so its log can be read.
const MAX_BODY = 4 * 1024 * 1024;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  server = await ownServer("it_mcpbody");
  key = (await newKey({ limitMinute: 100_000, limitDay: 1_000_000 })).key;
}, 200_000);

afterAll(async () => {
  await server?.stop();
});

const HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function post(body: unknown) {
  const res = await fetch(`${server.baseUrl}/mcp`, {
    method: "POST",
    headers: { ...HEADERS, Authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { id: unknown; error?: { code: number; message: string }; result?: unknown },
  };
}

describe("tools/call arguments that are no object", () => {
  it.each([
    ["an array", [1, 2], /not an array/],
    ["null", null, /not null/],
    ["a number", 7, /not a number/],
  ])("%s: -32602 Invalid params with a readable message, the request's id kept", async (_label, args, says) => {
    const { status, body } = await post({
      jsonrpc: "2.0",
      id: 41,
      method: "tools/call",
      params: { name: "list_indices", arguments: args },
    });
    expect(status).toBe(200);
    expect(body.id).toBe(41);
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toMatch(
      /^Invalid params: tools\/call 'arguments' must be an object of named arguments/,
    );
    expect(body.error?.message).toMatch(says);
    expect(body.error?.message).not.toMatch(/expected|invalid_type|"path"/);
  });

  it("an object, or no arguments at all, still calls the tool", async () => {
    expect(
      (await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_quota", arguments: {} } })).body
        .result,
    ).toBeTruthy();
    expect(
      (await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_quota" } })).body.result,
    ).toBeTruthy();
  });
});

describe("a body over 4 MB", () => {
  it("chunked: answered 413 while the client is still sending, long before the body ends; no 500, no stack", async () => {
    const logStart = server.output().length;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const total = 64 * 1024 * 1024;
    let sent = 0;
    let sentAtAnswer = -1;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/mcp",
          method: "POST",
          headers: { ...HEADERS, Authorization: `Bearer ${key}`, "Transfer-Encoding": "chunked" },
        },
        (res) => {
          sentAtAnswer = sent;
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", (error) => (sentAtAnswer >= 0 ? undefined : reject(error)));
      const pump = () => {
        while (sent < total && sentAtAnswer < 0) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (sentAtAnswer < 0) req.end();
      };
      req.write("{");
      pump();
    });
    expect(status).toBe(413);
    // The answer came once the limit was passed, not after the body: what was sent by then is a
    // small part of it (the kernel's buffers and the reader's last chunk beyond 4 MB).
    expect(sentAtAnswer).toBeLessThan(total / 2);
    expect(sentAtAnswer).toBeGreaterThan(MAX_BODY / 2);
    expect(server.output().slice(logStart)).not.toMatch(/internal_error|(\n|\\n)\s+at .*\(/);
    expect((await fetch(`${server.baseUrl}/livez`)).status).toBe(200);
  }, 60_000);

  it("with Content-Length over the limit: 413 at once, before any of the body is sent", async () => {
    // Only the head goes out: the answer must come from the declared length alone. (A client
    // that writes the whole body may see the closing socket reset before it reads the 413.)
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/mcp",
          method: "POST",
          headers: { ...HEADERS, Authorization: `Bearer ${key}`, "Content-Length": String(MAX_BODY + 1) },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(answer.status).toBe(413);
    expect((JSON.parse(answer.body) as { error: { message: string } }).error.message).toMatch(/Payload Too Large/);
  });
});

describe("a client dropping its request mid-body is not a database outage", () => {
  it("33 drops: no [db] unavailable in the log, a page that needs the database keeps answering 200, /healthz says the database is ok", async () => {
    const logStart = server.output().length;
    const drop = () =>
      new Promise<void>((resolve) => {
        const socket = net.connect(server.port, "127.0.0.1", () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`,
          );
        });
        // The server has the request (it says 100 Continue): one byte of the body, then gone.
        socket.once("data", () => {
          socket.write("{");
          setImmediate(() => socket.destroy());
        });
        socket.on("error", () => undefined);
        socket.on("close", () => resolve());
      });
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 11 }, drop));
      // A page that needs the database (it answered 503 while a drop was taken for an outage), and
      // the database's own health (Redis's, on a loaded machine, is not this rule's).
      const [page, health] = await Promise.all([
        fetch(`${server.baseUrl}/portal/signin`),
        fetch(`${server.baseUrl}/healthz`),
      ]);
      expect(page.status).toBe(200);
      expect(((await health.json()) as { database: { status: string } }).database.status).toBe("ok");
    }
    // The drops were seen by the server (its access log counts them), and none was taken for the database.
    await waitFor(
      "the drops in the access log",
      () =>
        (server
          .output()
          .slice(logStart)
          .match(/"route":"\/mcp"/g)?.length ?? 0) >= 33,
      { timeoutMs: 10_000 },
    );
    const log = server.output().slice(logStart);
    expect(log).not.toMatch(/\[db\] unavailable/);
    expect(log).not.toMatch(/(\n|\\n)\s+at .*\(/);
  }, 60_000);
});
