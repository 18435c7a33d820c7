import type { DotItemDotProps } from "recharts";

/**
 * One marker per data item, carrying the exact value: `chart-point` elements in the SVG are the
 * items of the API history (tests count them; the value stays the API's string, not the plotted
 * float). A row marked `extra` (the latest level drawn after the last daily fixing) is a
 * `chart-latest-point` instead, always visible.
 */
export function chartDot(color: string, radius: number) {
  function ChartDot(props: DotItemDotProps) {
    const { cx, cy, index, payload } = props as DotItemDotProps & { payload: { t: string; value: string; extra?: boolean } };
    const className = payload.extra ? "chart-latest-point" : "chart-point";
    if (typeof cx !== "number" || typeof cy !== "number") {
      return <circle key={index} className={className} data-t={payload.t} data-value={payload.value} r={0} cx={0} cy={0} />;
    }
    return (
      <circle
        key={index}
        className={className}
        data-t={payload.t}
        data-value={payload.value}
        cx={cx}
        cy={cy}
        r={payload.extra ? Math.max(radius, 3) : radius}
        fill={payload.extra ? "#ffffff" : color}
        stroke={payload.extra ? color : "none"}
        strokeWidth={payload.extra ? 1.5 : 0}
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
