import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { CLIENT_TYPES_FILE, clientTypesSource } from "@/scripts/lib/client-types";

test("the TypeScript client's wire types are generated from the current OpenAPI document (npm run clients:types)", async () => {
  expect(readFileSync(CLIENT_TYPES_FILE, "utf8")).toBe(await clientTypesSource());
});
