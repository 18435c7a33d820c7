import fs from "node:fs";
import { runOperator } from "./lib/operator-cli";

// `npm run ingest -- FILE...`: stores market snapshots (JSONL or CSV), one transaction per file.
async function main(): Promise<number> {
  const files = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  if (!files.length) {
    console.error("usage: npm run ingest -- FILE.jsonl|FILE.csv [FILE...]");
    return 2;
  }
  let code = 0;
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      console.error(`${file}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
      code = 1;
      continue;
    }
    code = Math.max(code, await runOperator("ingest", { file, text }));
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`ingest: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
