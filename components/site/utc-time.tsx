import { formatUtc } from "@/lib/site/time";

/** A timestamp shown in UTC, with the API's exact string in `dateTime` and the title. */
export function UtcTime({ value, seconds = false, testId }: { value: string; seconds?: boolean; testId?: string }) {
  return (
    <time
      dateTime={value.endsWith("Z") ? value : `${value}Z`}
      title={value}
      data-testid={testId}
      className="whitespace-nowrap"
    >
      {formatUtc(value, seconds)}
    </time>
  );
}
