// Messages for outcomes that reach the sign-in page as a query parameter (forms posted without
// JavaScript, and Auth.js error redirects). The JSON path carries its own, more specific text.
const MESSAGES: Record<string, string> = {
  invalid_email: "Enter a valid e-mail address, like you@company.com.",
  free_mail: "Please use your work e-mail address. Addresses at free mail providers are not accepted for API accounts.",
  rate_limited: "Too many sign-in links were requested. Use the newest link you received, or try again later.",
  mail_unavailable: "Sign-in e-mail is not configured on this server.",
  send_failed: "We could not send the e-mail just now. Please try again in a minute.",
  not_configured: "Sign-in is not available on this server right now.",
  unavailable:
    "Sign-in is temporarily unavailable: a service it depends on is not responding. Please try again in a minute.",
  cross_site: "That request did not come from this site, so it was ignored. Please try again here.",
  AccessDenied:
    "Please use your work e-mail address. Addresses at free mail providers are not accepted for API accounts.",
  Verification: "That sign-in link was already used or has expired. Request a new one below.",
  Configuration: "Sign-in failed because of a problem on our side. Please try again in a minute.",
};

export function signInMessage(code: string | undefined): string | null {
  if (!code) return null;
  return MESSAGES[code] ?? "Sign-in did not work. Please try again.";
}
