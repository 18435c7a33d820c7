import { parseFlags, runOperator } from "./lib/operator-cli";

const USAGE = `usage:
  npm run --silent keys -- mint --email E [--limit-minute N] [--limit-day N] [--name NAME]
  npm run --silent keys -- rotate --key K
  npm run --silent keys -- revoke --key K
  npm run --silent keys -- list --email E`;

async function main(): Promise<number> {
  const [sub, ...rest] = process.argv.slice(2);
  if (!sub || !["mint", "rotate", "revoke", "list"].includes(sub)) {
    console.error(USAGE);
    return 2;
  }
  return runOperator(`keys.${sub}`, parseFlags(rest));
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`keys: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
