import { venuesCommand } from "@/lib/venues/search-command";

// `npm run venues -- search WORDS`: Polymarket tags and events, Kalshi series and events that match,
// with the selector to put in a catalog. Reads the venues only (no database, no server needed).
// `npm run venues -- doctor`: one read of every endpoint the applied catalog uses (the database's
// catalog in force), a table of what each answered; exit 1 when a venue's API drifted.
async function main(argv: string[]): Promise<number> {
  const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
  if (argv[0] !== "doctor") return venuesCommand(argv, io);
  if (argv.length > 1) {
    io.err(`venues: doctor takes no arguments\nusage: npm run venues -- doctor\n`);
    return 2;
  }
  const { root, closeRoot } = await import("@/lib/root");
  const { doctorCommand } = await import("@/lib/ingest/venue-doctor");
  try {
    return await doctorCommand(await root().db(), io);
  } finally {
    await closeRoot();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`venues: ${error.message.split("\n")[0]}`);
    process.exit(1);
  },
);
