import type { DotItemDotProps } from "recharts";

/**
 * One marker per data item, carrying the exact value: `chart-point` elements in the SVG are the
 * items of the chart (tests count them; the value stays the API's string, not the plotted float).
 */
export function chartDot(color: string, radius: number) {
  function ChartDot(props: DotItemDotProps) {
    const { cx, cy, index, payload } = props as DotItemDotProps & { payload: { t: string; value: string } };
    if (typeof cx !== "number" || typeof cy !== "number") {
      return <circle key={index} className="chart-point" data-t={payload.t} data-value={payload.value} r={0} cx={0} cy={0} />;
    }
    return (
      <circle
        key={index}
        className="chart-point"
        data-t={payload.t}
        data-value={payload.value}
        cx={cx}
        cy={cy}
        r={radius}
        fill={color}
        stroke="none"
      />
    );
  }
  return ChartDot;
}

/** Dots shrink as points multiply so a 90-day hourly chart stays a line. */
export function dotRadius(count: number): number {
  if (count <= 40) return 3;
  if (count <= 200) return 1.75;
  return 0.9;
}
