"use client";

import { type ReactNode, Suspense, useEffect, useRef } from "react";
import { fullLabel } from "./axis-format";
import { ChartDownloads, type PngPublish } from "./chart-downloads";
import { useLoadWhenIdle } from "./use-load-when-idle";

/** Colour of a history chart's headline line and its point markers. */
export const LINE = "#2f5bea";

/** One plotted point: `x` and `y` are what is drawn; `t` and `value` are the API's exact values. */
export interface HistoryRow {
  t: string;
  x: number;
  y: number;
  value: string;
  /** drawn as the line's last point but not one of the API history's points (the latest level) */
  extra?: boolean;
}

/** A PNG's second line: the plotted range, in UTC. */
export function rangeSubtitle(span: { first: number; last: number }): string {
  return `${fullLabel(span.first)} to ${fullLabel(span.last)}`;
}

/** A row's time in a tooltip, in UTC, with the API's timestamp in `dateTime`. */
export function TooltipTime({ row }: { row: HistoryRow }) {
  return <time dateTime={row.t}>{fullLabel(row.x)}</time>;
}

/**
 * A chart's box: the controls and downloads above it, and in it the plain SVG `preview` (in the
 * HTML, drawn at once) until the interactive `plot` takes its place. The plot's code (the chart
 * library) is fetched once the page has hydrated and drawn when the browser is idle, or at once
 * when the reader points at, touches or tabs into the chart, so it never delays the page
 * becoming usable.
 */
export function HistoryChartFrame({
  count,
  testId,
  controls,
  download,
  preview,
  plot,
  preload,
}: {
  /** rows plotted */
  count: number;
  testId: string;
  /** toggles shown above the chart, before the downloads */
  controls?: ReactNode;
  /** the CSV of the plotted series, the files' names and the PNG's title lines */
  download: { filename: string; title: string; subtitle?: string; csv: () => string; publish?: PngPublish };
  /** a plain SVG drawing of the series, in the HTML and shown until the interactive chart renders */
  preview?: ReactNode;
  /** the interactive chart: a lazily loaded component, rendered once wanted */
  plot: () => ReactNode;
  /** fetches the plot's code (the loader the lazy component was made from) */
  preload: () => Promise<unknown>;
}) {
  const [wanted, want] = useLoadWhenIdle();
  useEffect(() => {
    void preload();
  }, [preload]);
  const frame = useRef<HTMLDivElement>(null);
  return (
    <div onPointerEnter={want} onTouchStart={want} onFocus={want}>
      <div className="mb-2 flex flex-wrap items-center justify-end gap-x-4 gap-y-2 text-xs text-slate-700">
        {controls}
        <ChartDownloads
          filename={download.filename}
          title={download.title}
          subtitle={download.subtitle}
          csv={download.csv}
          frame={frame}
          testId={testId}
          publish={download.publish}
        />
      </div>
      <div
        ref={frame}
        className="relative h-72 w-full min-w-0 overflow-hidden sm:h-80"
        data-testid={`${testId}-frame`}
        data-count={count}
      >
        {wanted ? <Suspense fallback={preview}>{plot()}</Suspense> : preview}
      </div>
    </div>
  );
}
