import Link from "next/link";
import { Fact } from "@/components/site/fact";
import { UtcTime } from "@/components/site/utc-time";
import type { EntryLaunch } from "@/lib/data/launches";

/** Base date and launch of an entry with back-calculated history, as facts of its page. */
export function LaunchFacts({ launch }: { launch: EntryLaunch }) {
  return (
    <>
      <Fact term="Base date">
        <UtcTime value={launch.baseDate} testId="base-date" />
      </Fact>
      <Fact term="Launch date">
        <span data-testid="launch-date">
          <UtcTime value={launch.launchAt} />
        </span>{" "}
        <span className="text-slate-600">
          (values before it are{" "}
          <Link href="/docs/methodology/recomputing#back-calculated-history">back-calculated</Link>
          {launch.historyFilled > 0
            ? `; ${launch.historyFilled} later hour${launch.historyFilled === 1 ? "" : "s"} filled from venue history`
            : ""}
          )
        </span>
      </Fact>
    </>
  );
}

/** The chart legend of the shaded, back-calculated part. */
export function BackCalculatedLegend({ launch }: { launch: EntryLaunch }) {
  return (
    <span data-testid="back-calculated-legend">
      <span aria-hidden="true" className="mr-1 inline-block h-3 w-4 rounded-sm bg-slate-200 align-middle" />
      Shaded: back-calculated from the venues&apos; price history, before the launch on{" "}
      <UtcTime value={launch.launchAt} /> (hypothetical: not published at the time;{" "}
      <Link href="/docs/methodology/recomputing#back-calculated-history">what differs</Link>)
    </span>
  );
}
