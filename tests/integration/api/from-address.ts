import http from "node:http";

export interface WireAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request from a given loopback address (127.0.0.2, 127.0.0.3, ...): the server throttles by
 * the socket's peer address, so a test that spends an address budget takes an address of its
 * own and does not depend on what ran before it.
 */
export function requestFrom(
  localAddress: string,
  port: number,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: init.method ?? "GET",
        headers: init.headers,
        localAddress,
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
