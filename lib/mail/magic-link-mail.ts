import type { Mail } from "@/lib/mail/send-mail";

const PRODUCT = "PM Benchmarks";

function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** The sign-in mail: one link to the confirmation page, valid once for `minutes`. */
export function magicLinkMail(options: { to: string; url: string; minutes: number }): Mail {
  const { to, url, minutes } = options;
  const subject = `Your sign-in link for ${PRODUCT}`;
  const text = [
    `Hello,`,
    ``,
    `Open this link to sign in to the ${PRODUCT} developer portal as ${to}:`,
    ``,
    url,
    ``,
    `The link works once and expires in ${minutes} minutes. You will be asked to confirm before you are signed in.`,
    `If you did not ask for it, ignore this e-mail: nobody can sign in without the link.`,
    ``,
    `${PRODUCT}`,
  ].join("\n");
  const safeUrl = escapeHtml(url);
  const html = `<!doctype html>
<html lang="en"><body style="margin:0;padding:24px;background:#f8fafc;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#0f172a">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="480" cellpadding="0" cellspacing="0" style="max-width:480px;background:#ffffff;border:1px solid #e2e8f0;border-radius:8px">
<tr><td style="padding:32px">
<p style="margin:0 0 8px;font-size:14px;color:#64748b">${PRODUCT} developer portal</p>
<h1 style="margin:0 0 16px;font-size:20px">Sign in as ${escapeHtml(to)}</h1>
<p style="margin:0 0 24px;font-size:15px;line-height:1.5">Use the button below to sign in. The link works once and expires in ${minutes} minutes.</p>
<p style="margin:0 0 24px"><a href="${safeUrl}" style="display:inline-block;background:#2f5bea;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">Sign in to ${PRODUCT}</a></p>
<p style="margin:0 0 8px;font-size:13px;color:#64748b">Or paste this address into your browser:</p>
<p style="margin:0 0 24px;font-size:13px;word-break:break-all"><a href="${safeUrl}" style="color:#2f5bea">${safeUrl}</a></p>
<p style="margin:0;font-size:13px;color:#64748b">If you did not ask for this e-mail, ignore it: nobody can sign in without the link.</p>
</td></tr></table>
</td></tr></table>
</body></html>`;
  return { to, subject, text, html, links: [url] };
}
