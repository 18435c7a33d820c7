import { runOperator } from "./lib/operator-cli";

// `npm run backfill -- [TICKER ...]`: back-calculates catalog entries whose base date (inceptionAt)
// lies before their launch (launchAt), from the venues' price history, then lets the engine go on.
// Without a ticker: every such entry. Run again, it re-reads the history and restates what moved.
async function main(): Promise<number> {
  const tickers = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  if (process.argv.includes("--help")) {
    console.error(
      "usage: npm run backfill -- [TICKER ...]\n(new entries with a base date are back-calculated by the server by themselves)",
    );
    return 2;
  }
  return runOperator("backfill", { tickers });
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`backfill: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
