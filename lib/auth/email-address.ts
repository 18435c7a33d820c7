import { z } from "zod";

const shape = z.email();

export type EmailCheck =
  { ok: true; email: string; domain: string } | { ok: false; reason: "invalid_email" | "free_mail"; message: string };

/** Canonical form of an address, as Auth.js stores it: NFKC, trimmed, lower case. */
export function normalizeEmail(raw: string): string {
  return raw.normalize("NFKC").trim().toLowerCase();
}

/** True when `domain` is one of `freeDomains` or a subdomain of one. */
export function isFreeMailDomain(domain: string, freeDomains: readonly string[]): boolean {
  const d = domain.toLowerCase();
  return freeDomains.some((free) => d === free || d.endsWith(`.${free}`));
}

/** Validates a sign-in address: well-formed, and not at a free mail provider. */
export function checkWorkEmail(raw: unknown, freeDomains: readonly string[]): EmailCheck {
  const email = typeof raw === "string" ? normalizeEmail(raw) : "";
  const at = email.lastIndexOf("@");
  if (!email || email.length > 254 || email.includes('"') || !shape.safeParse(email).success || at < 1) {
    return { ok: false, reason: "invalid_email", message: "Enter a valid e-mail address, like you@company.com." };
  }
  const domain = email.slice(at + 1);
  if (isFreeMailDomain(domain, freeDomains)) {
    return {
      ok: false,
      reason: "free_mail",
      message: `Please use your work e-mail address. Addresses at ${domain} and other free mail providers are not accepted for API accounts.`,
    };
  }
  return { ok: true, email, domain };
}
