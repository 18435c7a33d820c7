import Link from "next/link";

/** A full-width explanation when the portal cannot work on this server (configuration). */
export function ConfigProblem({ message }: { message: string }) {
  return (
    <section
      aria-labelledby="config-problem"
      className="mx-auto max-w-xl rounded-lg border border-amber-300 bg-amber-50 p-6"
    >
      <h1 id="config-problem" className="text-xl font-semibold text-amber-950">
        The developer portal is not configured
      </h1>
      <p className="mt-3 text-sm text-amber-950">{message}</p>
      <p className="mt-3 text-sm text-amber-900">
        The API keeps serving existing keys. Operators: see the configuration section of the README.
      </p>
    </section>
  );
}

/** What a visitor sees for a magic link that cannot sign in any more. */
export function LinkProblem({ state, minutes }: { state: "expired" | "used"; minutes: number }) {
  return (
    <div className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">
        {state === "expired" ? "This sign-in link has expired" : "This sign-in link was already used"}
      </h1>
      <p className="text-slate-700">
        {state === "expired"
          ? `Sign-in links work for ${minutes} minutes. Enter your work e-mail to get a new one.`
          : "Each sign-in link works once, and this one cannot sign anyone in any more. Enter your work e-mail to get a new one."}
      </p>
      {state === "used" ? (
        <p className="text-sm text-slate-600">
          If you just used it yourself, you are probably signed in already:{" "}
          <Link href="/portal">go to your API keys</Link>.
        </p>
      ) : null}
    </div>
  );
}
