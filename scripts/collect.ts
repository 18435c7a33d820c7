import { runOperator } from "./lib/operator-cli";

// `npm run collect -- --once [--at ISO]`: one collector run over the venues the applied catalog
// names, then the engine computes the hours it completes. --at records the reads at that hour
// (replays and tests); without it, the current hour.
async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const atFlag = argv.findIndex((a) => a === "--at" || a.startsWith("--at="));
  const at = atFlag < 0 ? undefined : argv[atFlag]!.includes("=") ? argv[atFlag]!.slice(5) : argv[atFlag + 1];
  if (!argv.includes("--once")) {
    console.error(
      "usage: npm run collect -- --once [--at 2026-11-24T10:00:00Z]\n(the server's scheduler collects every hour by itself)",
    );
    return 2;
  }
  return runOperator("collect", at ? { at } : {});
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`collect: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
