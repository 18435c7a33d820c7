import fs from "node:fs";
import { runOperator } from "./lib/operator-cli";

// `npm run catalog -- validate FILE` checks a catalog (file rules, then a dry run against the
// stored catalog); `npm run catalog -- apply FILE` brings it in force. Through the running
// embedded server when one holds the database, directly with DATABASE_URL.
async function main(): Promise<number> {
  const [verb, file] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  if ((verb !== "validate" && verb !== "apply") || !file) {
    console.error("usage: npm run catalog -- validate|apply FILE.json");
    return 2;
  }
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    console.error(`${file}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
    return 1;
  }
  return runOperator(`catalog.${verb}`, { file, text });
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`catalog: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
