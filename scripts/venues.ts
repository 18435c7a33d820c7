import { venuesCommand } from "@/lib/venues/search-command";

// `npm run venues -- search WORDS`: Polymarket tags and events, Kalshi series and events that match,
// with the selector to put in a catalog. Reads the venues only (no database, no server needed).
venuesCommand(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`venues: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
