/**
 * A chart as a PNG fit to publish: the title and the series' name, the as-of time, the plotted
 * drawing, a legend of what is drawn and the attribution line the terms require, each text line
 * wrapped to the image's width (never squeezed). The texts also travel in the file as PNG text
 * chunks (Title, Description, Creation Time, Copyright), so they survive a crop.
 */

export interface PngLegendItem {
  label: string;
  color: string;
  /** how the item is drawn: a solid or dashed line, a filled band, a bar, or a dashed marker line */
  kind: "line" | "dashed" | "band" | "bar" | "marker" | "shade";
}

export interface PngTexts {
  /** the chart's title (bold, first) */
  title: string;
  /** the series' name and other identifying lines, under the title */
  lines: string[];
  /** the as-of time, UTC, e.g. `2026-11-28 09:00 UTC` (null: none, e.g. a usage chart) */
  asOf: string | null;
  legend: PngLegendItem[];
  attribution?: string;
}

const PAD = 10;
const TITLE_FONT = "600 14px system-ui, sans-serif";
const TEXT_FONT = "12px system-ui, sans-serif";
const SMALL_FONT = "11px system-ui, sans-serif";

/** Lines of `text` at most `width` wide in the context's current font; a word longer than the width is cut. */
export function wrapText(measure: (s: string) => number, text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (measure(next) <= width) {
      line = next;
      continue;
    }
    if (line) out.push(line);
    line = word;
    while (measure(line) > width && line.length > 1) {
      let cut = line.length - 1;
      while (cut > 1 && measure(line.slice(0, cut)) > width) cut--;
      out.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line) out.push(line);
  return out;
}

interface Block {
  font: string;
  color: string;
  lineHeight: number;
  lines: string[];
}

function legendRows(ctx: CanvasRenderingContext2D, items: PngLegendItem[], width: number): PngLegendItem[][] {
  ctx.font = TEXT_FONT;
  const rows: PngLegendItem[][] = [[]];
  let used = 0;
  for (const item of items) {
    const w = 22 + ctx.measureText(item.label).width + 14;
    if (used > 0 && used + w > width) {
      rows.push([]);
      used = 0;
    }
    rows[rows.length - 1]!.push(item);
    used += w;
  }
  return rows.filter((r) => r.length > 0);
}

function drawSwatch(ctx: CanvasRenderingContext2D, item: PngLegendItem, x: number, y: number) {
  ctx.save();
  ctx.strokeStyle = item.color;
  ctx.fillStyle = item.color;
  if (item.kind === "band" || item.kind === "shade") {
    ctx.globalAlpha = item.kind === "band" ? 0.45 : 0.6;
    ctx.fillRect(x, y - 5, 16, 10);
  } else if (item.kind === "bar") {
    ctx.fillRect(x + 3, y - 6, 10, 12);
  } else if (item.kind === "marker") {
    ctx.lineWidth = 1.5;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(x + 8, y - 7);
    ctx.lineTo(x + 8, y + 7);
    ctx.stroke();
  } else {
    ctx.lineWidth = item.kind === "dashed" ? 1.25 : 2;
    if (item.kind === "dashed") ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x + 16, y);
    ctx.stroke();
  }
  ctx.restore();
}

/**
 * Draws the header, `image` (the chart's SVG drawn at `width` x `height`, less `cropTop` pixels
 * at its top, where the page's own HTML legend sat), the legend and the attribution.
 */
export async function composePng(
  image: HTMLImageElement,
  size: { width: number; height: number; cropTop: number },
  texts: PngTexts,
): Promise<Blob> {
  const { width, height, cropTop } = size;
  const scale = 2;
  const canvas = document.createElement("canvas");
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2d canvas");
  const inner = width - 2 * PAD;
  const wrap = (font: string, text: string) => {
    ctx.font = font;
    return wrapText((s) => ctx.measureText(s).width, text, inner);
  };
  const head: Block[] = [
    { font: TITLE_FONT, color: "#0f172a", lineHeight: 18, lines: wrap(TITLE_FONT, texts.title) },
    ...texts.lines.map((l) => ({ font: TEXT_FONT, color: "#334155", lineHeight: 16, lines: wrap(TEXT_FONT, l) })),
    ...(texts.asOf
      ? [{ font: TEXT_FONT, color: "#334155", lineHeight: 16, lines: wrap(TEXT_FONT, `As of ${texts.asOf}`) }]
      : []),
  ];
  const legend = legendRows(ctx, texts.legend, inner);
  const attribution = texts.attribution ? wrap(SMALL_FONT, texts.attribution) : [];
  const headHeight = PAD + head.reduce((n, b) => n + b.lines.length * b.lineHeight, 0) + 4;
  const plotHeight = height - cropTop;
  const legendHeight = legend.length * 18 + (legend.length ? 6 : 0);
  const footHeight = attribution.length * 14 + PAD;
  const total = headHeight + plotHeight + legendHeight + footHeight;

  canvas.width = width * scale;
  canvas.height = total * scale;
  ctx.scale(scale, scale);
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, total);
  ctx.textBaseline = "alphabetic";
  let y = PAD;
  for (const b of head) {
    ctx.font = b.font;
    ctx.fillStyle = b.color;
    for (const line of b.lines) {
      y += b.lineHeight;
      ctx.fillText(line, PAD, y - 4);
    }
  }
  y = headHeight;
  ctx.drawImage(image, 0, cropTop, width, plotHeight, 0, y, width, plotHeight);
  y += plotHeight + 4;
  ctx.font = TEXT_FONT;
  for (const row of legend) {
    let x = PAD;
    const mid = y + 9;
    for (const item of row) {
      drawSwatch(ctx, item, x, mid);
      ctx.fillStyle = "#334155";
      ctx.font = TEXT_FONT;
      ctx.fillText(item.label, x + 22, mid + 4);
      x += 22 + ctx.measureText(item.label).width + 14;
    }
    y += 18;
  }
  y += legend.length ? 6 : 0;
  ctx.font = SMALL_FONT;
  ctx.fillStyle = "#475569";
  for (const line of attribution) {
    y += 14;
    ctx.fillText(line, PAD, y - 3);
  }
  const blob = await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png"),
  );
  return withTextChunks(new Uint8Array(await blob.arrayBuffer()), {
    Title: [texts.title, ...texts.lines].join(" | "),
    Description: `Legend: ${texts.legend.map((l) => l.label).join("; ")}`,
    ...(texts.asOf ? { "Creation Time": texts.asOf } : {}),
    ...(texts.attribution ? { Copyright: texts.attribution } : {}),
  });
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Latin-1 text chunks (the PNG standard's keywords) inserted before IEND. */
export function withTextChunks(png: Uint8Array, texts: Record<string, string>): Blob {
  const chunks: Uint8Array[] = [];
  for (const [keyword, value] of Object.entries(texts)) {
    // tEXt is Latin-1: characters outside it are written as "?"
    const text = `${keyword}\0${value}`;
    const data = Uint8Array.from(text, (ch) => (ch.charCodeAt(0) < 256 ? ch.charCodeAt(0) : 63));
    const chunk = new Uint8Array(12 + data.length);
    const view = new DataView(chunk.buffer);
    view.setUint32(0, data.length);
    chunk.set([0x74, 0x45, 0x58, 0x74], 4); // "tEXt"
    chunk.set(data, 8);
    view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
    chunks.push(chunk);
  }
  const iend = png.length - 12; // IEND is the last chunk, 12 bytes
  return new Blob(
    [
      png.subarray(0, iend) as Uint8Array<ArrayBuffer>,
      ...(chunks as Array<Uint8Array<ArrayBuffer>>),
      png.subarray(iend) as Uint8Array<ArrayBuffer>,
    ],
    { type: "image/png" },
  );
}
