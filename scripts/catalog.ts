import fs from "node:fs";
import { runOperator } from "./lib/operator-cli";

// `npm run catalog -- validate FILE` checks a catalog (file rules, then a dry run against the
// stored catalog); `npm run catalog -- apply FILE` brings it in force. Through the running
// embedded server when one holds the database, directly with DATABASE_URL.
// `npm run catalog -- preview FILE` shows what each entry would select now, from the venues only.
async function main(): Promise<number> {
  const [verb, file] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  if ((verb !== "validate" && verb !== "apply" && verb !== "preview") || !file) {
    console.error("usage: npm run catalog -- validate|preview|apply FILE.json");
    return 2;
  }
  if (verb === "preview") {
    const { previewCommand } = await import("@/lib/catalog/preview-command");
    return previewCommand(file, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
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
