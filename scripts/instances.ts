import { parseFlags, runOperator } from "./lib/operator-cli";

const USAGE = `usage:
  npm run --silent instances -- list    # the running server instances of this database, tab-separated`;

async function main(): Promise<number> {
  const [sub, ...rest] = process.argv.slice(2);
  if (sub !== "list") {
    console.error(USAGE);
    return 2;
  }
  return runOperator("instances.list", parseFlags(rest));
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`instances: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
