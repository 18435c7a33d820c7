import { tickLabel, type TimeWindow } from "./axis-format";

// A chart drawn as plain SVG in the page's HTML, shown until the interactive chart has rendered
// in the browser: the reader sees the series as soon as the HTML arrives, and the page does not
// wait for the chart library to load and lay out before anything is drawn.

const W = 1000;
const H = 300;
/** At most this many vertices per line: more than the pixels of any screen's plot would be wasted bytes. */
const MAX_POINTS = 600;

export interface PreviewLine {
  values: ReadonlyArray<number | null>;
  color: string;
  dash?: string;
  width?: number;
}

export interface PreviewBand {
  lo: readonly number[];
  hi: readonly number[];
  color: string;
}

function indices(n: number): number[] {
  if (n <= MAX_POINTS) return Array.from({ length: n }, (_, i) => i);
  const step = (n - 1) / (MAX_POINTS - 1);
  return Array.from({ length: MAX_POINTS }, (_, i) => Math.round(i * step));
}

export function ChartPreview({
  xs,
  span,
  lines,
  band,
  yFormat,
  testId,
}: {
  xs: readonly number[];
  span: TimeWindow;
  lines: PreviewLine[];
  band?: PreviewBand;
  yFormat: (v: number) => string;
  testId: string;
}) {
  const all: number[] = [];
  for (const l of lines) for (const v of l.values) if (v !== null && Number.isFinite(v)) all.push(v);
  if (band) all.push(...band.lo, ...band.hi);
  if (all.length === 0 || xs.length === 0) return null;
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.01 || 1;
  lo -= pad;
  hi += pad;
  const { first, last } = span;
  const sx = (x: number) => (last > first ? ((x - first) / (last - first)) * W : W / 2);
  const sy = (v: number) => H - ((v - lo) / (hi - lo)) * H;
  const f = (n: number) => n.toFixed(1);
  const idx = indices(xs.length);
  const path = (values: ReadonlyArray<number | null>) => {
    let d = "";
    let pen = false;
    for (const i of idx) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      d += `${pen ? "L" : "M"}${f(sx(xs[i]!))},${f(sy(v))}`;
      pen = true;
    }
    return d;
  };
  const bandPath = band
    ? `M${idx.map((i) => `${f(sx(xs[i]!))},${f(sy(band.hi[i]!))}`).join("L")}L${[...idx]
        .reverse()
        .map((i) => `${f(sx(xs[i]!))},${f(sy(band.lo[i]!))}`)
        .join("L")}Z`
    : null;
  const yTicks = [0.1, 0.5, 0.9].map((q) => lo + (hi - lo) * q);
  return (
    <div
      className="absolute inset-0 bg-white pt-8 pr-3 pb-7 pl-14"
      data-testid={`${testId}-preview`}
      aria-hidden="true"
    >
      <div className="relative h-full w-full border-b border-slate-400">
        <svg
          viewBox={`0 0 ${W} ${H}`}
          preserveAspectRatio="none"
          className="absolute inset-0 h-full w-full overflow-visible"
        >
          {yTicks.map((v) => (
            <line
              key={v}
              x1={0}
              x2={W}
              y1={sy(v)}
              y2={sy(v)}
              stroke="#e2e8f0"
              strokeDasharray="3 3"
              vectorEffect="non-scaling-stroke"
            />
          ))}
          {bandPath && <path d={bandPath} fill={band!.color} fillOpacity={0.45} stroke="none" />}
          {lines.map((l, i) => (
            <path
              key={i}
              className="chart-line"
              d={path(l.values)}
              fill="none"
              stroke={l.color}
              strokeWidth={l.width ?? 1.75}
              strokeDasharray={l.dash}
              vectorEffect="non-scaling-stroke"
            />
          ))}
        </svg>
        {yTicks.map((v) => (
          <span
            key={v}
            className="absolute -left-14 w-12 -translate-y-1/2 text-right text-xs text-slate-600"
            style={{ top: `${(sy(v) / H) * 100}%` }}
          >
            {yFormat(v)}
          </span>
        ))}
        {span.ticks.map((t) => (
          <span
            key={t}
            className="absolute top-full mt-1 -translate-x-1/2 text-xs whitespace-nowrap text-slate-600"
            style={{ left: `${(sx(t) / W) * 100}%` }}
          >
            {tickLabel(t, span.withHour)}
          </span>
        ))}
      </div>
    </div>
  );
}
