import "server-only";
import { createTransport, type Transporter } from "nodemailer";
import { config } from "@/lib/config";
import { createOutbox, outboxEnabled, type Outbox } from "@/lib/mail/outbox";

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
    super(
      "E-mail delivery is not configured: set EMAIL_SERVER (an SMTP URL such as smtp://user:pass@mail.example.com:587).",
    );
    this.name = "MailUnavailableError";
  }
}

/** Mail of one root (lib/root.ts): SMTP when EMAIL_SERVER is set, else the local outbox where it is allowed. */
export interface Mailer {
  available(): boolean;
  send(mail: Mail): Promise<void>;
  outbox: Outbox;
}

export function createMailer(): Mailer {
  const outbox = createOutbox();
  let current: { url: string; transport: Transporter } | null = null;
  const transport = (url: string): Transporter => {
    if (current?.url !== url) {
      current?.transport.close();
      current = { url, transport: createTransport(url) };
    }
    return current.transport;
  };
  return {
    outbox,
    available: () => Boolean(config().EMAIL_SERVER) || outboxEnabled(),
    async send(mail) {
      const c = config();
      if (c.EMAIL_SERVER) {
        const result = await transport(c.EMAIL_SERVER).sendMail({
          from: c.EMAIL_FROM,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
        if (failed.length) throw new Error(`the SMTP server did not accept ${failed.length} recipient(s)`);
        return;
      }
      if (!outboxEnabled()) throw new MailUnavailableError();
      outbox.add({
        from: c.EMAIL_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        links: mail.links ?? [],
      });
    },
  };
}
