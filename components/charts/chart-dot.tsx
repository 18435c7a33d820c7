"use client";

import { useXAxisScale, useYAxisScale } from "recharts";

/**
 * One marker per data item, carrying the exact value: `chart-point` elements in the SVG are the
 * items of the API history (tests count them; the value stays the API's string, not the plotted
 * float). A row marked `extra` (the latest level drawn after the last daily fixing) is a
 * `chart-latest-point` instead, always visible. Drawn in one layer from the axes' scales: the
 * chart library's per-dot rendering cost several times as much at 2,160 points.
 */
export function PointMarks({
  rows,
  color,
}: {
  rows: ReadonlyArray<{ t: string; x: number; y: number; value: string; extra?: boolean }>;
  color: string;
}) {
  const sx = useXAxisScale();
  const sy = useYAxisScale();
  if (!sx || !sy) return null;
  const radius = dotRadius(rows.length);
  return (
    <g className="chart-points">
      {rows.map((r, i) => {
        const cx = sx(r.x);
        const cy = sy(r.y);
        const drawn = typeof cx === "number" && typeof cy === "number" && Number.isFinite(cx) && Number.isFinite(cy);
        return r.extra ? (
          <circle
            key={i}
            className="chart-latest-point"
            data-t={r.t}
            data-value={r.value}
            cx={drawn ? cx : 0}
            cy={drawn ? cy : 0}
            r={drawn ? Math.max(radius, 3) : 0}
            fill="#ffffff"
            stroke={color}
            strokeWidth={1.5}
          />
        ) : (
          <circle
            key={i}
            className="chart-point"
            data-t={r.t}
            data-value={r.value}
            cx={drawn ? cx : 0}
            cy={drawn ? cy : 0}
            r={drawn ? radius : 0}
            fill={color}
          />
        );
      })}
    </g>
  );
}

/** Dots shrink as points multiply so a 90-day hourly chart stays a line. */
export function dotRadius(count: number): number {
  if (count <= 40) return 3;
  if (count <= 200) return 1.75;
  return 0.9;
}
