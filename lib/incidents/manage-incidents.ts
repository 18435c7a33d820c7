import "server-only";
import { root } from "@/lib/root";
import type { Severity } from "@/lib/data/incident-rule";

export class IncidentError extends Error {
  readonly kind = "IncidentError" as const;
}

const ref = (id: string) => `INC-${id.replaceAll("-", "").slice(0, 8).toUpperCase()}`;

/** An incident by its id or its `INC-XXXXXXXX` reference (the id's first 8 hex digits). */
async function resolveId(handle: string): Promise<string> {
  const hex = handle.trim().replace(/^INC-/i, "").replaceAll("-", "").toLowerCase();
  if (!/^[0-9a-f]{8,32}$/.test(hex)) throw new IncidentError(`no incident ${handle}`);
  const prefix = `${hex.slice(0, 8)}${hex.length > 8 ? `-${hex.slice(8)}` : ""}`;
  const rows = await (
    await root().db()
  ).$queryRaw<Array<{ id: string }>>`SELECT id::text FROM incidents WHERE id::text LIKE ${`${prefix}%`} LIMIT 2`;
  if (rows.length === 0) throw new IncidentError(`no incident ${handle}`);
  if (rows.length > 1) throw new IncidentError(`${handle} names more than one incident: give more of its id`);
  return rows[0]!.id;
}

export async function openIncident(input: {
  title: string;
  subject: string;
  severity: Severity;
  note?: string;
}): Promise<string> {
  const now = new Date();
  const row = await (
    await root().db()
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
  root().cache.clear();
  return ref(row.id);
}

export async function noteIncident(handle: string, body: string): Promise<string> {
  const id = await resolveId(handle);
  await (await root().db()).incidentNote.create({ data: { incidentId: id, body } });
  root().cache.clear();
  return ref(id);
}

/** Closes an incident, automatic or not (the recorder opens a new one if its condition still holds). */
export async function closeIncident(handle: string, note?: string): Promise<string> {
  const id = await resolveId(handle);
  const now = new Date();
  const prisma = await root().db();
  const row = await prisma.incident.findUnique({ where: { id }, select: { resolvedAt: true } });
  if (row?.resolvedAt) throw new IncidentError(`${ref(id)} was already closed at ${row.resolvedAt.toISOString()}`);
  await prisma.incident.update({
    where: { id },
    data: { resolvedAt: now, notes: { create: { at: now, body: note ?? "Resolved." } } },
  });
  root().cache.clear();
  return ref(id);
}

export async function listIncidents(all: boolean): Promise<string[]> {
  const rows = await (
    await root().db()
  ).incident.findMany({
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
