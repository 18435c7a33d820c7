import "server-only";
import { createTransport, type Transporter } from "nodemailer";
import { config } from "@/lib/config";
import { addToOutbox, outboxEnabled } from "@/lib/mail/outbox";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The links in the mail, for the development outbox. */
  links?: string[];
}

export class MailUnavailableError extends Error {
  constructor() {
    super("E-mail delivery is not configured: set EMAIL_SERVER (an SMTP URL such as smtp://user:pass@mail.example.com:587).");
    this.name = "MailUnavailableError";
  }
}

const mailer = ((globalThis as { __pmbMailer?: { url: string | null; transport: Transporter | null } }).__pmbMailer ??= {
  url: null,
  transport: null,
});

function transport(url: string): Transporter {
  if (!mailer.transport || mailer.url !== url) {
    mailer.transport?.close();
    mailer.transport = createTransport(url);
    mailer.url = url;
  }
  return mailer.transport;
}

/** Whether this server can deliver a sign-in link at all (SMTP or the development outbox). */
export function mailAvailable(): boolean {
  return Boolean(config().EMAIL_SERVER) || outboxEnabled();
}

/** Sends through SMTP when EMAIL_SERVER is set, else into the development outbox. */
export async function sendMail(mail: Mail): Promise<void> {
  const c = config();
  if (c.EMAIL_SERVER) {
    const result = await transport(c.EMAIL_SERVER).sendMail({ from: c.EMAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
    if (failed.length) throw new Error(`the SMTP server did not accept ${failed.length} recipient(s)`);
    return;
  }
  if (!outboxEnabled()) throw new MailUnavailableError();
  addToOutbox({ from: c.EMAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, links: mail.links ?? [] });
}
