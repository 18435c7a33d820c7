import "server-only";
import type { Db } from "@/lib/db";
import type { Root } from "@/lib/root";
import type { Severity } from "@/lib/data/incident-rule";

export class IncidentError extends Error {
  readonly kind = "IncidentError" as const;
}

const ref = (id: string) => `INC-${id.replaceAll("-", "").slice(0, 8).toUpperCase()}`;

/** An incident by its id or its `INC-XXXXXXXX` reference (the id's first 8 hex digits). */
async function resolveId(prisma: Db, handle: string): Promise<string> {
  const hex = handle.trim().replace(/^INC-/i, "").replaceAll("-", "").toLowerCase();
  if (!/^[0-9a-f]{8,32}$/.test(hex)) throw new IncidentError(`no incident ${handle}`);
  const prefix = `${hex.slice(0, 8)}${hex.length > 8 ? `-${hex.slice(8)}` : ""}`;
  const rows = await prisma.$queryRaw<
    Array<{ id: string }>
  >`SELECT id::text FROM incidents WHERE id::text LIKE ${`${prefix}%`} LIMIT 2`;
  if (rows.length === 0) throw new IncidentError(`no incident ${handle}`);
  if (rows.length > 1) throw new IncidentError(`${handle} names more than one incident: give more of its id`);
  return rows[0]!.id;
}

/** What the operator's incident commands use: the database, and the read cache they clear. */
export type IncidentServices = Pick<Root, "db" | "cache">;

export async function openIncident(
  { db, cache }: IncidentServices,
  input: { title: string; subject: string; severity: Severity; note?: string },
): Promise<string> {
  const now = new Date();
  const row = await (
    await db()
  ).incident.create({
    data: {
      source: "operator",
      severity: input.severity,
      subject: input.subject,
      title: input.title,
      openedAt: now,
      ...(input.note ? { notes: { create: { at: now, body: input.note } } } : {}),
    },
    select: { id: true },
  });
  cache.clear();
  return ref(row.id);
}

export async function noteIncident({ db, cache }: IncidentServices, handle: string, body: string): Promise<string> {
  const prisma = await db();
  const id = await resolveId(prisma, handle);
  await prisma.incidentNote.create({ data: { incidentId: id, body } });
  cache.clear();
  return ref(id);
}

/** Closes an incident, automatic or not (the recorder opens a new one if its condition still holds). */
export async function closeIncident({ db, cache }: IncidentServices, handle: string, note?: string): Promise<string> {
  const prisma = await db();
  const id = await resolveId(prisma, handle);
  const now = new Date();
  const row = await prisma.incident.findUnique({ where: { id }, select: { resolvedAt: true } });
  if (row?.resolvedAt) throw new IncidentError(`${ref(id)} was already closed at ${row.resolvedAt.toISOString()}`);
  await prisma.incident.update({
    where: { id },
    data: { resolvedAt: now, notes: { create: { at: now, body: note ?? "Resolved." } } },
  });
  cache.clear();
  return ref(id);
}

export async function listIncidents(prisma: Db, all: boolean): Promise<string[]> {
  const rows = await prisma.incident.findMany({
    where: all ? {} : { resolvedAt: null },
    orderBy: { openedAt: "desc" },
    take: 500,
    select: {
      id: true,
      source: true,
      severity: true,
      subject: true,
      title: true,
      openedAt: true,
      resolvedAt: true,
      notes: { select: { at: true, body: true }, orderBy: { at: "desc" }, take: 1 },
    },
  });
  return rows.map((r) =>
    [
      ref(r.id),
      r.resolvedAt ? "resolved" : "open",
      r.severity,
      r.source,
      r.openedAt.toISOString(),
      r.resolvedAt?.toISOString() ?? "-",
      r.subject,
      r.title,
      JSON.stringify(r.notes[0]?.body ?? ""),
    ].join("\t"),
  );
}
