import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { originForm } from "@/lib/server/front";

// RFC 9112 section 3.2.2: an absolute-form target's path and query become the target, and its
// authority replaces Host; any other target is left for the front to answer.
const request = (url: string, host = "client.example") =>
  ({ url, headers: { host }, rawHeaders: ["Host", host] }) as unknown as IncomingMessage;

describe("originForm", () => {
  it.each([
    ["http://api.example/v1/indices?x=1", "/v1/indices?x=1", "api.example"],
    ["HTTPS://API.Example:8443/v1", "/v1", "api.example:8443"],
    ["http://api.example", "/", "api.example"],
    ["http://api.example?q=1", "/?q=1", "api.example"],
  ])("%s -> target %s, Host %s", (url, target, host) => {
    const req = request(url);
    originForm(req);
    expect(req.url).toBe(target);
    expect(req.headers.host).toBe(host);
    // the raw fields, which the Host checks count, are left as received
    expect(req.rawHeaders).toEqual(["Host", "client.example"]);
  });

  it.each(["/v1/indices", "*", "ftp://x/v1", "http:///v1", "http://user@x/v1", "http://x/v1#frag", "v1"])(
    "%s is left as it is",
    (url) => {
      const req = request(url);
      originForm(req);
      expect(req.url).toBe(url);
      expect(req.headers.host).toBe("client.example");
    },
  );
});
