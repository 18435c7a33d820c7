import { runOperator } from "./lib/operator-cli";

// `npm run snapshots:build`: builds the bundle of every closed month that has none yet.
runOperator("snapshots.build", {}).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`snapshots:build: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
