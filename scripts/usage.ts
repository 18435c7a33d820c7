import { parseFlags, runOperator } from "./lib/operator-cli";

const USAGE = `usage:
  npm run --silent usage -- replay --dir DATA_DIR   # write the usage journals of an instance that is gone (its DATA_DIR) to the database`;

async function main(): Promise<number> {
  const [sub, ...rest] = process.argv.slice(2);
  if (sub !== "replay") {
    console.error(USAGE);
    return 2;
  }
  return runOperator("usage.replay", parseFlags(rest));
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`usage: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
