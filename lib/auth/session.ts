import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { auth, sessionCookieName } from "@/lib/auth/auth";
import { csrfTokenFor } from "@/lib/auth/csrf";
import { authReadiness } from "@/lib/auth/secret";

export interface PortalUser {
  id: string;
  email: string;
}

/** The signed-in account of this request, or null. Deduplicated per request. */
export const currentUser = cache(async (): Promise<PortalUser | null> => {
  if (!authReadiness().ok) return null;
  const session = await auth();
  const id = session?.user?.id;
  const email = session?.user?.email;
  return id && email ? { id, email } : null;
});

/** The signed-in account, or a redirect to the sign-in page. */
export async function requireUser(): Promise<PortalUser> {
  const user = await currentUser();
  if (!user) redirect("/portal/signin");
  return user;
}

/** The CSRF token for this request's session, for forms and fetches that change state. */
export async function currentCsrfToken(): Promise<string> {
  const token = (await cookies()).get(sessionCookieName())?.value;
  return token ? csrfTokenFor(token) : "";
}
