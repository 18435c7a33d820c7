import "server-only";
import { z } from "zod";
import { config } from "@/lib/config";
import type { Mail } from "@/lib/mail/send-mail";
import type { Db } from "@/lib/db";
import type { Root } from "@/lib/root";

/** What the portal's licence form sends; every field trimmed, lengths bounded. */
export const licenseRequestInput = z.object({
  name: z.string().trim().min(1, "Enter your name.").max(120),
  organization: z.string().trim().min(1, "Enter your organisation.").max(160),
  useCase: z.enum(["internal", "product", "redistribution", "research", "other"], {
    message: "Choose how you will use the data.",
  }),
  distribution: z.string().trim().min(1, "Say who will see the data or products built on it.").max(500),
  message: z.string().trim().max(4000).default(""),
});
export type LicenseRequestInput = z.infer<typeof licenseRequestInput>;

export const USE_CASES: Record<LicenseRequestInput["useCase"], string> = {
  internal: "Internal use in a commercial organisation",
  product: "In a product or service we sell",
  redistribution: "Redistribution of the data itself",
  research: "Published research or media",
  other: "Something else",
};

/** At most this many requests per account per day: enough for corrections, not a mail cannon. */
export const DAILY_REQUESTS = 5;

export class LicenseRequestLimit extends Error {}

function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export function acknowledgementMail(to: string, reference: string, input: LicenseRequestInput): Mail {
  const lines = [
    `Hello ${input.name},`,
    ``,
    `We received your request for a commercial licence of PM Benchmarks data (reference ${reference}).`,
    ``,
    `Organisation: ${input.organization}`,
    `Use: ${USE_CASES[input.useCase]}`,
    `Audience: ${input.distribution}`,
    ``,
    `We answer within two business days at this address. Until a licence is in place, the free terms apply: ${config().licenseUrl}`,
    ``,
    `PM Benchmarks`,
  ];
  const text = lines.join("\n");
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">${lines
    .map((l) => (l === "" ? "<br>" : `<p style="margin:0 0 4px">${escapeHtml(l)}</p>`))
    .join("")}</body></html>`;
  return { to, subject: `Your licence request ${reference} was received`, text, html };
}

/**
 * Stores a request from a signed-in account and acknowledges it by mail to the account's
 * (verified) address. The request is kept even when the mail cannot be sent; `acknowledged`
 * records whether it was.
 */
export async function submitLicenseRequest(
  { db, mailer }: Pick<Root, "db" | "mailer">,
  user: { id: string; email: string },
  input: LicenseRequestInput,
): Promise<{ id: string; reference: string; acknowledged: boolean }> {
  const prisma = await db();
  const since = new Date(Date.now() - 86_400_000);
  const recent = await prisma.licenseRequest.count({ where: { userId: user.id, createdAt: { gte: since } } });
  if (recent >= DAILY_REQUESTS)
    throw new LicenseRequestLimit(
      `This account sent ${recent} requests in the last 24 hours; we answer each one, so there is no need to send more.`,
    );
  const row = await prisma.licenseRequest.create({
    data: { ...input, userId: user.id, email: user.email },
    select: { id: true },
  });
  const reference = `LR-${row.id.slice(0, 8).toUpperCase()}`;
  let acknowledged = false;
  try {
    await mailer.send(acknowledgementMail(user.email, reference, input));
    acknowledged = true;
    await prisma.licenseRequest.update({ where: { id: row.id }, data: { acknowledged: true } });
  } catch (error) {
    console.error(
      `[portal] licence request ${reference} stored, acknowledgement mail failed: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  return { id: row.id, reference, acknowledged };
}

/** The operator's view: newest first. */
export async function listLicenseRequests(prisma: Db, limit = 100) {
  return prisma.licenseRequest.findMany({ orderBy: { createdAt: "desc" }, take: limit });
}
