"use client";

import { type RefObject, useState } from "react";
import { composePng, type PngLegendItem } from "./png-export";

/** One CSV field, quoted when RFC 4180 requires it. */
function csvField(v: string | number | null | undefined): string {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** RFC 4180 text of a header row and data rows, CRLF line ends. */
export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>,
): string {
  return [header, ...rows].map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n";
}

function save(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The publishing details of a PNG: the series' name, the as-of time, the legend and the attribution line. */
export interface PngPublish {
  series: string;
  /** API timestamp of the newest value drawn */
  asOf: string;
  legend: PngLegendItem[];
  attribution?: string;
}

/** `2026-11-28T09:00:00.000000Z` as `2026-11-28 09:00 UTC`. */
export function asOfLabel(t: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(t);
  return m ? `${m[1]} ${m[2]} UTC` : t;
}

/**
 * Draws the chart's SVG (white background, twice the pixels) under its title, the series' name
 * and the as-of time, with a legend and the attribution under it (png-export.ts). A legend the
 * page draws in HTML above the plot leaves a gap at the top of the SVG: that strip is left out.
 */
async function svgToPng(svg: SVGSVGElement, title: string, subtitle?: string, publish?: PngPublish): Promise<Blob> {
  const box = svg.getBoundingClientRect();
  const width = Math.max(1, Math.round(box.width));
  const height = Math.max(1, Math.round(box.height));
  const legendAbove = svg.parentElement?.querySelector<HTMLElement>(".recharts-legend-wrapper");
  const legendBox = legendAbove?.getBoundingClientRect();
  // a legend in the upper third of the chart sits above the plot (recharts places it under the top margin)
  const cropTop =
    legendBox && legendBox.height > 0 && legendBox.top - box.top < height / 3
      ? Math.max(0, Math.min(height / 2, Math.round(legendBox.bottom - box.top)))
      : 0;
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  clone.setAttribute("width", String(width));
  clone.setAttribute("height", String(height));
  const text = new XMLSerializer().serializeToString(clone);
  const img = new Image();
  const src = URL.createObjectURL(new Blob([text], { type: "image/svg+xml;charset=utf-8" }));
  try {
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error("the chart could not be drawn as an image"));
      img.src = src;
    });
    if (!publish) return await plainPng(img, width, height, title, subtitle);
    return await composePng(
      img,
      { width, height, cropTop },
      {
        title,
        lines: [...(publish ? [publish.series] : []), ...(subtitle ? [subtitle] : [])],
        asOf: publish ? asOfLabel(publish.asOf) : null,
        legend: publish?.legend ?? [],
        attribution: publish?.attribution,
      },
    );
  } finally {
    URL.revokeObjectURL(src);
  }
}

/** A chart that is not published data (the portal's usage): its title (and subtitle) over the drawing. */
async function plainPng(
  img: HTMLImageElement,
  width: number,
  height: number,
  title: string,
  subtitle?: string,
): Promise<Blob> {
  const scale = 2;
  const head = subtitle ? 44 : 28;
  const canvas = document.createElement("canvas");
  canvas.width = width * scale;
  canvas.height = (height + head) * scale;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2d canvas");
  ctx.scale(scale, scale);
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, height + head);
  ctx.fillStyle = "#0f172a";
  ctx.font = "600 13px system-ui, sans-serif";
  ctx.fillText(title, 8, 18, width - 16);
  if (subtitle) {
    ctx.fillStyle = "#475569";
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillText(subtitle, 8, 35, width - 16);
  }
  ctx.drawImage(img, 0, head, width, height);
  return await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png"),
  );
}

/**
 * The interactive chart's SVG in `frame`, once it is drawn. The chart's code loads lazily (when
 * the browser is idle, or when the reader reaches for the chart, as a click on these buttons
 * does), so a PNG asked for before that waits for the drawing, up to `timeoutMs`.
 */
function drawnChart(frame: HTMLElement | null, timeoutMs = 10_000): Promise<SVGSVGElement> {
  // The plot's own surface, a child of the chart's wrapper: the legend's icons are SVG surfaces too.
  const find = () => frame?.querySelector<SVGSVGElement>(".recharts-wrapper > svg.recharts-surface") ?? null;
  const now = find();
  if (now) return Promise.resolve(now);
  if (!frame) return Promise.reject(new Error("The chart is not drawn yet."));
  return new Promise((resolve, reject) => {
    const done = () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
    const observer = new MutationObserver(() => {
      const svg = find();
      if (!svg) return;
      done();
      // One frame more: the point markers are laid out from the drawn axes.
      window.requestAnimationFrame(() => resolve(svg));
    });
    const timer = window.setTimeout(() => {
      done();
      reject(new Error("The chart is not drawn yet: try again in a moment."));
    }, timeoutMs);
    observer.observe(frame, { childList: true, subtree: true });
  });
}

/**
 * "Download what you see": the plotted series as CSV and the chart as PNG. `csv` is built on
 * click from the rows the chart draws; the PNG is the chart's own SVG, so both match the screen.
 */
export function ChartDownloads({
  filename,
  title,
  subtitle,
  csv,
  frame,
  testId,
  publish,
}: {
  /** without extension, e.g. `PMX-CRYPTO-30d-1d` */
  filename: string;
  /** the PNG's title line (and the buttons' names) */
  title: string;
  /** the PNG's second line, e.g. the plotted range in UTC and the scale */
  subtitle?: string;
  csv: () => string;
  /** the element holding the chart's SVG */
  frame: RefObject<HTMLElement | null>;
  testId: string;
  /** the series' name, as-of time, legend and attribution drawn on the PNG */
  publish?: PngPublish;
}) {
  const [error, setError] = useState<string | null>(null);
  const button =
    "rounded border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand";
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid={`${testId}-downloads`}>
      <button
        type="button"
        className={button}
        aria-label={`Download CSV of the plotted series: ${title}`}
        onClick={() => save(new Blob([csv()], { type: "text/csv;charset=utf-8" }), `${filename}.csv`)}
      >
        CSV
      </button>
      <button
        type="button"
        className={button}
        aria-label={`Download PNG of the chart: ${title}`}
        onClick={() => {
          setError(null);
          drawnChart(frame.current)
            .then((svg) => svgToPng(svg, title, subtitle, publish))
            .then(
              (blob) => save(blob, `${filename}.png`),
              (e: unknown) => setError(e instanceof Error ? e.message : "PNG export failed"),
            );
        }}
      >
        PNG
      </button>
      {error && (
        <span role="status" className="text-xs text-rose-700">
          {error}
        </span>
      )}
    </div>
  );
}
