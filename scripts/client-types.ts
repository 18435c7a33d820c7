import fs from "node:fs";
import { CLIENT_TYPES_FILE, clientTypesSource } from "./lib/client-types";

// `npm run clients:types`: regenerates the TypeScript client's wire types from the OpenAPI document.
clientTypesSource()
  .then((source) => {
    fs.writeFileSync(CLIENT_TYPES_FILE, source);
    console.log(`wrote ${CLIENT_TYPES_FILE}`);
  })
  .catch((error: Error) => {
    console.error(error);
    process.exit(1);
  });
