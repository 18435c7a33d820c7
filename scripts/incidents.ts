import { parseFlags, runOperator } from "./lib/operator-cli";

const USAGE = `usage:
  npm run --silent incidents -- open --title TEXT [--subject NAME] [--severity major|minor] [--note TEXT]
  npm run --silent incidents -- note INC-XXXXXXXX --text TEXT
  npm run --silent incidents -- close INC-XXXXXXXX [--note TEXT]
  npm run --silent incidents -- list [--all]   # open incidents (--all: every one), newest first, tab-separated`;

// Incidents shown on /status. The service opens and closes its own (a venue failing a whole
// collector run, a stale index or series, the engine behind); an operator opens, annotates and
// closes others here. Through the running embedded server when one holds the database.
async function main(): Promise<number> {
  const [sub, ...rest] = process.argv.slice(2);
  const id = rest[0] && !rest[0].startsWith("--") ? rest[0] : undefined;
  const flags = parseFlags(rest);
  switch (sub) {
    case "open":
      return runOperator("incidents.open", flags);
    case "note":
    case "close":
      if (!id) break;
      return runOperator(`incidents.${sub}`, { id, ...flags });
    case "list":
      return runOperator("incidents.list", { all: rest.includes("--all") });
  }
  console.error(USAGE);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`incidents: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
