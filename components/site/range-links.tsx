import { SegmentedLinks } from "@/components/site/segmented-links";
import { chartHref, type Interval, RANGE_KEYS, RANGES, type RangeKey } from "@/lib/site/range";

/** A chart's range control: each link changes the range and keeps the interval. */
export function RangeLinks({ path, current, interval }: { path: string; current: RangeKey; interval?: Interval }) {
  return (
    <SegmentedLinks
      label="Range"
      name="range"
      current={current}
      options={RANGE_KEYS.map((r) => ({
        key: r,
        label: `${RANGES[r]} days`,
        ariaLabel: "Range: ",
        href: chartHref(path, { range: r, interval }),
      }))}
    />
  );
}
