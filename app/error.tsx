"use client";

// A page that failed to render. Most often the database could not be reached at that moment:
// while the outage lasts, later requests get proxy.ts's 503 page instead of this one.
export default function PageError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <section className="space-y-3">
      <h1 className="text-3xl font-semibold">Temporarily unavailable</h1>
      <p>
        This page could not be shown right now. The service may be briefly unable to reach its data; nothing is lost.
        Please try again in a few seconds.
      </p>
      <p>
        <button type="button" className="underline" onClick={() => reset()}>
          Try again
        </button>
      </p>
    </section>
  );
}
