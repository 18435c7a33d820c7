"use client";

import { lazy, useMemo, useRef, useState } from "react";
import { timeWindow, toMs } from "./axis-format";
import { toCsv } from "./chart-downloads";
import { ChartPreview } from "./chart-preview";
import { groupEvents } from "./event-groups";
import { HistoryChartFrame, type HistoryRow, LINE, rangeSubtitle } from "./history-chart-frame";
import type { PngLegendItem } from "./png-export";
import { type PackedLevels, unpackLevels } from "@/lib/site/level-series";
import { useWidth } from "./use-width";
import type { Interval } from "@/lib/data/window";

/** The chart library's part, fetched after the page is usable. */
const loadLevelPlot = () => import("./level-plot");
const LevelPlot = lazy(loadLevelPlot);

export interface LevelChartPoint {
  /** API timestamp */
  t: string;
  /** exact decimal level string */
  indexLevel: string;
}

export interface LevelChartEvent {
  t: string;
  label: string;
}

/** Plot area width: the frame less the value axis and margins. */
const AXIS_AND_MARGINS = 76;

/**
 * Index levels over the selected window, with the reconstitutions in it marked (grouped so
 * markers never overlap, and hideable), a log-scale toggle, and the latest level as the line's
 * last point when it falls after the last point of the interval (a daily chart's last fixing).
 */
export function LevelChart({
  series,
  latest,
  events,
  interval,
  label,
  filename,
  backCalculatedUntil = null,
  seriesName,
  attribution,
  testId = "level-chart",
}: {
  /** the API history's levels, packed (lib: level-series.ts) */
  series: PackedLevels;
  /** the latest level (GET .../latest), drawn last when newer than the last point */
  latest?: LevelChartPoint | null;
  events: LevelChartEvent[];
  interval: Interval;
  label: string;
  filename: string;
  /** the launch (API timestamp): levels before it are back-calculated, shaded on the plot and so named in the CSV */
  backCalculatedUntil?: string | null;
  /** the index's ticker and name, on the PNG */
  seriesName?: string;
  /** the attribution line the terms require on anything published, on the PNG */
  attribution?: string;
  testId?: string;
}) {
  const launch = backCalculatedUntil ? toMs(backCalculatedUntil) : null;
  const [log, setLog] = useState(false);
  const [showEvents, setShowEvents] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box, 800);

  // `y` is plotted only; tooltips, tables and the CSV use the exact `value`.
  const rows: HistoryRow[] = useMemo(() => {
    const out: HistoryRow[] = unpackLevels(series).map((p) => ({
      t: p.t,
      value: p.indexLevel,
      x: p.x,
      y: Number(p.indexLevel),
    }));
    const end = out[out.length - 1];
    if (latest && (!end || toMs(latest.t) > end.x))
      out.push({ t: latest.t, value: latest.indexLevel, x: toMs(latest.t), y: Number(latest.indexLevel), extra: true });
    return out;
  }, [series, latest]);
  const span = timeWindow(rows, { hourly: interval === "1h" });
  const groups = useMemo(
    () =>
      groupEvents(
        events.map((e) => ({ ...e, x: toMs(e.t) })),
        span.first,
        span.last,
        Math.max(40, width - AXIS_AND_MARGINS),
      ),
    [events, span.first, span.last, width],
  );
  const eventCount = groups.reduce((n, g) => n + g.events.length, 0);
  const kind = interval === "1h" ? "hourly" : "fixing";
  const legend: PngLegendItem[] = [
    { label: interval === "1h" ? "Index level, hourly" : "Index level, daily fixing", color: LINE, kind: "line" },
    ...(showEvents && eventCount > 0
      ? [{ label: "R: reconstitution", color: "#d97706", kind: "marker" as const }]
      : []),
    ...(launch !== null && launch > span.first
      ? [{ label: "Shaded: back-calculated", color: "#cbd5e1", kind: "shade" as const }]
      : []),
  ];

  return (
    <div ref={box} data-testid={`${testId}-box`} data-event-groups={groups.length} data-events={eventCount}>
      <HistoryChartFrame
        count={rows.length}
        testId={testId}
        preview={
          <ChartPreview
            xs={rows.map((r) => r.x)}
            span={span}
            testId={testId}
            yFormat={(v) => v.toFixed(2)}
            lines={[{ values: rows.map((r) => r.y), color: LINE }]}
          />
        }
        preload={loadLevelPlot}
        plot={() => (
          <LevelPlot
            rows={rows}
            span={span}
            testId={testId}
            label={label}
            log={log}
            groups={showEvents ? groups : null}
            backCalculatedUntil={launch}
          />
        )}
        download={{
          filename,
          title: log ? `${label}, log scale` : label,
          subtitle: rangeSubtitle(span),
          publish: seriesName ? { series: seriesName, asOf: rows.at(-1)?.t ?? "", legend, attribution } : undefined,
          csv: () =>
            toCsv(
              ["t", "indexLevel", "kind"],
              rows.map((r) => [
                r.t,
                r.value,
                r.extra ? "latest" : launch !== null && r.x < launch ? `${kind}, back-calculated` : kind,
              ]),
            ),
        }}
        controls={
          <>
            {eventCount > 0 && (
              <label className="inline-flex cursor-pointer items-center gap-1.5">
                <input
                  type="checkbox"
                  checked={showEvents}
                  onChange={(e) => setShowEvents(e.target.checked)}
                  data-testid="toggle-reconstitutions"
                />
                Reconstitutions ({eventCount})
              </label>
            )}
            <label className="inline-flex cursor-pointer items-center gap-1.5">
              <input
                type="checkbox"
                checked={log}
                onChange={(e) => setLog(e.target.checked)}
                data-testid="toggle-log-scale"
              />
              Log scale
            </label>
          </>
        }
      />
    </div>
  );
}
