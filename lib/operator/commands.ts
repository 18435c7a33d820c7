import "server-only";
import { z } from "zod";
import { ingestFile } from "@/lib/ingest/ingest-file";
import type { RestateResult } from "@/lib/ingest/restate";
import { config } from "@/lib/config";
import { root } from "@/lib/root";
import { hasErrorKind } from "@/lib/plumbing/error-kind";
import { closeIncident, listIncidents, noteIncident, openIncident } from "@/lib/incidents/manage-incidents";
import { listLicenseRequests } from "@/lib/portal/license-requests";
import { hashKey, looksLikeKey } from "@/lib/keys/api-key";
import { CONFIRM_MS, confirmRevocation, describeInstance, liveInstances } from "@/lib/keys/instances";
import {
  ensureUser,
  findUserId,
  keyIdFor,
  isKeyError,
  listKeys,
  mintKey,
  revokeKey,
  rotateKey,
} from "@/lib/keys/manage-keys";

/** One line on what the engine did with the file. */
function describeRestatement(r: RestateResult, changed: number): string {
  if (changed === 0) return "nothing changed";
  if (r.fromHour === null) return "no computed hour was affected: the new snapshots feed the next tick";
  return `recomputed ${r.hours} hours from ${r.fromHour.toISOString()}: ${r.levelsRestated} index levels and ${r.ticksRestated} volatility values restated, ${r.added} added, ${r.linksRewritten} chain links rewritten`;
}

/** Exit status of a revocation recorded in the database that some running instance has not confirmed. */
export const NOT_CONFIRMED_EXIT = 3;

/**
 * The command reports success only once every running instance holds the revocation
 * (confirmRevocation: told through Redis, the instances on its prefix hold it on their next
 * request; otherwise each confirms from the database within REVOCATION_WATCH_MS); otherwise it
 * says which did not, and exits NOT_CONFIRMED_EXIT.
 */
async function confirmReach(
  sharedCache: "told" | "deferred",
  done: string,
  keyId: string,
  stdout: string,
): Promise<CommandResult> {
  const reach = await confirmRevocation(root(), keyId, sharedCache);
  if (reach.confirmed) {
    if (sharedCache === "told") return { stdout, stderr: "", exitCode: 0 };
    return {
      stdout,
      stderr: `note: ${done}; Redis is not reachable now, so it was carried by the database, and every running server confirmed it.\n`,
      exitCode: 0,
    };
  }
  const why = sharedCache === "deferred" ? "Redis is not reachable" : "they do not share this Redis";
  return {
    stdout,
    stderr: `error: ${done}, but NOT yet in effect everywhere: ${why}, and ${reach.missing.length} running server(s) did not confirm it within ${CONFIRM_MS / 1000} s: ${reach.missing.map(describeInstance).join(", ")}. They will refuse the key once they read the database again; check them (npm run instances -- list).\n`,
    exitCode: NOT_CONFIRMED_EXIT,
  };
}

/** What an operator command prints and how it exits; the same whether run in-process or via the server. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const ok = (stdout: string): CommandResult => ({ stdout, stderr: "", exitCode: 0 });
const fail = (stderr: string, exitCode = 1): CommandResult => ({ stdout: "", stderr, exitCode });

const email = z.string().trim().toLowerCase().email();
const limit = z.coerce.number().int().min(1).max(10_000_000).optional();

export const commandSchemas = {
  "keys.mint": z.object({ email, limitMinute: limit, limitDay: limit, name: z.string().max(100).optional() }),
  "keys.rotate": z.object({ key: z.string() }),
  "keys.revoke": z.object({ key: z.string() }),
  "keys.list": z.object({ email }),
  "instances.list": z.object({}),
  "usage.replay": z.object({ dir: z.string().min(1) }),
  "snapshots.build": z.object({}),
  "licenses.list": z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }),
  ingest: z.object({ file: z.string().min(1), text: z.string() }),
  "catalog.validate": z.object({ file: z.string().min(1), text: z.string() }),
  "catalog.apply": z.object({ file: z.string().min(1), text: z.string() }),
  collect: z.object({ at: z.iso.datetime().optional() }),
  backfill: z.object({
    tickers: z.array(z.string().regex(/^[A-Z0-9][A-Z0-9-]{1,31}$/, "is not a ticker")).default([]),
  }),
  "incidents.open": z.object({
    title: z.string().trim().min(1).max(200),
    subject: z.string().trim().min(1).max(60).default("Service"),
    severity: z.enum(["major", "minor"]).default("major"),
    note: z.string().trim().max(2000).optional(),
  }),
  "incidents.note": z.object({ id: z.string().min(1), text: z.string().trim().min(1).max(2000) }),
  "incidents.close": z.object({ id: z.string().min(1), note: z.string().trim().max(2000).optional() }),
  "incidents.list": z.object({ all: z.coerce.boolean().optional() }),
} as const;

export type CommandName = keyof typeof commandSchemas;

async function keyId(key: string): Promise<string | null> {
  return looksLikeKey(key) ? keyIdFor(await root().db(), hashKey(key)) : null;
}

/** The commands about the running instances: which are live, and the usage journals of one that is gone. */
async function instancesCommand(
  name: "instances.list" | "usage.replay",
  args: Record<string, unknown>,
): Promise<CommandResult> {
  if (name === "usage.replay") {
    const { replayUsage } = await import("@/lib/keys/usage-meter");
    const r = await replayUsage(root().database.bulkWrite, args.dir as string);
    return ok(
      `replayed ${r.requests} metered request(s) from ${r.files} usage journal file(s) in ${args.dir as string}\n`,
    );
  }
  const rows = await liveInstances(root());
  const lines = rows.map((i) =>
    [
      i.id,
      i.host ?? "?",
      String(i.pid ?? "?"),
      i.redisPrefix === null ? "no-redis" : `redis:${i.redisPrefix}`,
      `started=${i.startedAt.toISOString()}`,
      `seen=${i.seenAt.toISOString()}`,
    ].join("\t"),
  );
  return ok(lines.length ? `${lines.join("\n")}\n` : "no running instances\n");
}

/** catalog.validate (a dry run: applied, described, rolled back) and catalog.apply. */
async function catalogCommand(dryRun: boolean, args: Record<string, unknown>): Promise<CommandResult> {
  // Loaded on use: the keys commands start without the catalog and venue modules.
  const { describeApply } = await import("@/lib/catalog/apply-catalog");
  const { validateCatalog } = await import("@/lib/catalog/validate");
  const { applyCatalogText } = await import("@/lib/ingest/catalog-apply");
  const { ENGINE_LOCK } = await import("@/lib/ingest/engine-runner");
  const c = config();
  const catalog = validateCatalog(args.file as string, args.text as string);
  const rolledBack = Symbol("dry run");
  let summary;
  try {
    summary = await (
      await root().db()
    ).$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
        const s = await applyCatalogText(tx, args.file as string, args.text as string, {
          demo: c.demoMarket,
          seed: c.DEMO_SEED,
          now: new Date(),
        });
        if (dryRun) throw Object.assign(new Error("dry run"), { [rolledBack]: s });
        return s;
      },
      { timeout: 120_000, maxWait: 60_000 },
    );
  } catch (error) {
    const s = (error as Record<symbol, unknown>)[rolledBack];
    if (!dryRun || s === undefined) throw error;
    return ok(
      `${args.file as string}: valid, ${catalog.indices.length} indices and ${catalog.volatility.length} volatility series; applying it would change: ${describeApply(s as Parameters<typeof describeApply>[0]).replace(/^applied /, "")}`,
    );
  }
  root().cache.clear();
  return ok(describeApply(summary));
}

/** One collection run, then the back-calculation, the gap fill, the engine and the incidents. */
async function collectCommand(args: Record<string, unknown>): Promise<CommandResult> {
  const { collect, describeCollect } = await import("@/lib/ingest/collector");
  const { catchUp } = await import("@/lib/ingest/engine-runner");
  const c = config();
  const { venues } = root();
  const prisma = await root().db();
  const now = args.at ? new Date(args.at as string) : new Date();
  const r = await collect(prisma, venues, { now });
  const { backCalculatePending, describeBackCalc } = await import("@/lib/ingest/back-calculate");
  const { describeGapFill, fillMissedHours } = await import("@/lib/ingest/fill-gaps");
  // back-calculated first: the hours from a launch before `now` are then filled from the history
  const back = await backCalculatePending(prisma, venues, { now });
  const gaps = await fillMissedHours(prisma, venues, { now, since: back?.firstLaunch });
  const engine = await catchUp(prisma, { seed: c.DEMO_SEED, demo: c.demoMarket, catalog: null, now });
  root().cache.clear(); // before the incident recorder reads the status through it
  const { recordIncidents } = await import("@/lib/incidents/record-incidents");
  const incidents = await recordIncidents(root().read, prisma, c.ENGINE_TICK_SECONDS, now);
  return ok(
    `${describeCollect(r)}${describeGapFill(gaps)}${back ? describeBackCalc(back) : ""}engine: ${engine.skipped ? "busy, the next tick computes" : `computed ${engine.hours} hour(s)`}\n` +
      (incidents.opened.length || incidents.closed
        ? `incidents: opened ${incidents.opened.join(", ") || "none"}, closed ${incidents.closed}\n`
        : ""),
  );
}

/** The back-calculation of the given tickers (all of the applied catalog's when none), then the engine. */
async function backfillCommand(args: Record<string, unknown>): Promise<CommandResult> {
  const { backCalculate, backCalcEntries, describeBackCalc } = await import("@/lib/ingest/back-calculate");
  const { catchUp } = await import("@/lib/ingest/engine-runner");
  const c = config();
  if (c.demoMarket)
    return fail(
      "the demo market has no venue history to back-calculate from; run with DEMO_MARKET=0 and a catalog of venue entries",
    );
  const prisma = await root().db();
  const tickers = args.tickers as string[];
  const known = new Set((await backCalcEntries(prisma)).map((e) => e.ticker));
  const unknown = tickers.filter((t) => !known.has(t));
  if (unknown.length)
    return fail(
      `${unknown.join(", ")}: no entry of the applied catalog with a base date (inceptionAt) before its launch (launchAt)`,
      2,
    );
  const r = await backCalculate(prisma, tickers.length ? tickers : null, root().venues);
  const engine = await catchUp(prisma, { seed: c.DEMO_SEED, demo: false, catalog: null });
  root().cache.clear();
  const text = `${describeBackCalc(r)}engine: ${engine.skipped ? "busy, the next tick computes" : `computed ${engine.hours} further hour(s)`}\n`;
  // an entry a failed read held back is not back-calculated: the operator runs it again once the venue answers
  return r.waiting.length ? { stdout: text, stderr: "", exitCode: 1 } : ok(text);
}

/** One file of snapshots stored and what it changes recomputed, at the root's time; the API serves it at once. */
async function ingestCommand(file: string, text: string): Promise<CommandResult> {
  const { db, clock, cache } = root();
  const r = await ingestFile(await db(), file, text, { now: new Date(clock.now()) });
  cache.clear(); // the engine's writers leave the read cache to their caller
  return ok(
    `${r.file}: ${r.rows} rows, ${r.inserted} new, ${r.revised} revised, ${r.unchanged} unchanged${r.created ? `, ${r.created} market(s) of the catalog's universe added` : ""}\n${describeRestatement(r.restated, r.inserted + r.revised)}\n`,
  );
}

export async function runCommand(name: string, rawArgs: unknown): Promise<CommandResult> {
  if (!(name in commandSchemas)) return fail(`unknown command ${name}`, 2);
  const parsed = commandSchemas[name as CommandName].safeParse(rawArgs);
  if (!parsed.success) return fail(parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("\n"), 2);
  const args = parsed.data as Record<string, unknown>;
  if (name === "instances.list" || name === "usage.replay") return instancesCommand(name, args);
  try {
    switch (name as CommandName) {
      case "keys.mint": {
        const userId = await ensureUser(await root().db(), args.email as string);
        const { key } = await mintKey(await root().db(), userId, {
          name: (args.name as string | undefined) ?? "Operator key",
          limitMinute: (args.limitMinute as number | undefined) ?? null,
          limitDay: (args.limitDay as number | undefined) ?? null,
        });
        return ok(`${key}\n`);
      }
      case "keys.rotate": {
        const id = await keyId(args.key as string);
        if (!id) return fail("no such key");
        const { key, sharedCache } = await rotateKey(await root().db(), root().keys, id, null);
        return confirmReach(sharedCache, "the old key was retired in the database", id, `${key}\n`);
      }
      case "keys.revoke": {
        const id = await keyId(args.key as string);
        if (!id) return fail("no such key");
        const row = await revokeKey(await root().db(), root().keys, id, null);
        return confirmReach(
          row.sharedCache,
          "the key is revoked in the database",
          id,
          `revoked ${row.prefix}…${row.lastFour}\n`,
        );
      }
      case "keys.list": {
        const userId = await findUserId(await root().db(), args.email as string);
        if (!userId) return fail(`no account for ${args.email as string}`);
        const rows = await listKeys(await root().db(), userId);
        const lines = rows.map((k) =>
          [
            `${k.prefix}…${k.lastFour}`,
            k.status,
            `minute=${k.limitMinute ?? "default"}`,
            `day=${k.limitDay ?? "default"}`,
            `created=${k.createdAt.toISOString()}`,
            `lastUsed=${k.lastUsedAt?.toISOString() ?? "never"}`,
            k.name,
          ].join("\t"),
        );
        return ok(lines.length ? `${lines.join("\n")}\n` : "no keys\n");
      }
      case "ingest":
        return await ingestCommand(args.file as string, args.text as string);
      case "catalog.validate":
      case "catalog.apply":
        return await catalogCommand(name === "catalog.validate", args);
      case "collect":
        return await collectCommand(args);
      case "backfill":
        return await backfillCommand(args);
      case "incidents.open": {
        return ok(
          `opened ${await openIncident(root(), args as { title: string; subject: string; severity: "major" | "minor"; note?: string })}\n`,
        );
      }
      case "incidents.note": {
        return ok(`noted on ${await noteIncident(root(), args.id as string, args.text as string)}\n`);
      }
      case "incidents.close": {
        return ok(`closed ${await closeIncident(root(), args.id as string, args.note as string | undefined)}\n`);
      }
      case "incidents.list": {
        const lines = await listIncidents(await root().db(), args.all === true);
        return ok(lines.length ? `${lines.join("\n")}\n` : args.all ? "no incidents\n" : "no open incidents\n");
      }
      case "licenses.list": {
        const rows = await listLicenseRequests(await root().db(), (args.limit as number | undefined) ?? 100);
        const lines = rows.map((r) =>
          [
            r.createdAt.toISOString(),
            `LR-${r.id.slice(0, 8).toUpperCase()}`,
            r.status,
            r.acknowledged ? "acknowledged" : "not-acknowledged",
            r.email,
            r.name,
            r.organization,
            r.useCase,
            JSON.stringify(r.distribution),
            JSON.stringify(r.message),
          ].join("\t"),
        );
        return ok(lines.length ? `${lines.join("\n")}\n` : "no licence requests\n");
      }
      case "snapshots.build": {
        const { buildBundlesOnce } = await import("@/lib/ingest/bundles-once");
        const waits: Array<{ month: string; notFinalFrom: Date }> = [];
        const months = await buildBundlesOnce(await root().db(), config().embedded, new Date(), waits);
        const waiting = waits
          .map((w) => `${w.month} waits: its values from ${w.notFinalFrom.toISOString()} are not final yet\n`)
          .join("");
        return ok(
          months.length
            ? `built ${months.join(", ")}\n${waiting}`
            : waiting || "every closed month already has its bundle\n",
        );
      }
    }
  } catch (error) {
    // by `kind`, never `instanceof`: this runs in the built server, where a class has a copy per chunk
    if (isKeyError(error) || hasErrorKind(error, "CatalogError") || hasErrorKind(error, "IncidentError"))
      return fail(error.message);
    if (hasErrorKind(error, "IngestError")) return fail(`refused, nothing stored:\n${error.message}`);
    throw error;
  }
  return fail(`unhandled command ${name}`, 2);
}
