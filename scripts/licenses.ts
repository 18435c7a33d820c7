import { parseFlags, runOperator } from "./lib/operator-cli";

const USAGE = `usage:
  npm run --silent licenses -- list [--limit N]   # commercial licence requests, newest first (tab-separated)`;

async function main(): Promise<number> {
  const [sub, ...rest] = process.argv.slice(2);
  if (sub !== "list") {
    console.error(USAGE);
    return 2;
  }
  return runOperator("licenses.list", parseFlags(rest));
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`licenses: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
