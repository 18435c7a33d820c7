import "server-only";
import { randomUUID } from "node:crypto";
import { config } from "@/lib/config";

export interface OutboxMail {
  id: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Links the mail asks the reader to open (the magic link), absolute. */
  links: string[];
  sentAt: Date;
}

const MAX_MAILS = 100;

/**
 * The mails of one root (lib/root.ts). The outbox lives in this server process only: mails hold
 * live sign-in links, so they are never written to disk, and a restart empties it (the links it
 * held would still work for 15 minutes).
 */
export interface Outbox {
  add(mail: Omit<OutboxMail, "id" | "sentAt">): OutboxMail;
  /** Newest first. */
  mails(): readonly OutboxMail[];
}

/**
 * Mail goes to the outbox instead of SMTP when no EMAIL_SERVER is set and this is not a
 * production deployment: development, the embedded single-machine default (which `npm start`
 * and the e2e tests run with NODE_ENV=production), or an explicit DEV_OUTBOX=1. A production
 * server on a shared database without EMAIL_SERVER cannot send sign-in links at all.
 */
export function outboxEnabled(): boolean {
  const c = config();
  if (c.EMAIL_SERVER) return false;
  return c.NODE_ENV !== "production" || c.embedded || c.DEV_OUTBOX;
}

export function createOutbox(): Outbox {
  const mails: OutboxMail[] = [];
  return {
    add(mail) {
      const stored = { ...mail, id: randomUUID(), sentAt: new Date() };
      mails.unshift(stored);
      mails.length = Math.min(mails.length, MAX_MAILS);
      return stored;
    },
    mails: () => mails,
  };
}
