import { expect, test } from "@playwright/test";

// The `api` project: HTTP only, no browser page. What the production server answers itself.

test("a /v1 request without a key is invalid_api_key with X-Request-Id in the body and the header", async ({
  request,
}) => {
  const res = await request.get("/v1/indices");
  expect(res.status()).toBe(401);
  const body = await res.json();
  expect(body.error.code).toBe("invalid_api_key");
  expect(body.error.requestId).toBe(res.headers()["x-request-id"]);
});

test("a path that is not canonical is a 308 carrying X-Request-Id", async ({ request }) => {
  const res = await request.get("/v1/indices/", { maxRedirects: 0 });
  expect(res.status()).toBe(308);
  expect(res.headers().location).toBe("/v1/indices");
  expect(res.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
});

test("a method no route takes is method_not_allowed with Allow", async ({ request }) => {
  const res = await request.fetch("/v1/indices", { method: "PROPFIND" });
  expect(res.status()).toBe(405);
  expect(res.headers().allow).toBe("GET");
  expect((await res.json()).error.code).toBe("method_not_allowed");
});
