import type { Browser } from "@playwright/test";

export interface PngFacts {
  width: number;
  height: number;
  /** pixels within a small distance of `color` */
  colorPixels: number;
  /** pixels that are not (near) white, in the whole image */
  ink: number;
  /** dark pixels (text) in the title strip: the top `titleRows` rows */
  titleInk: number;
}

/**
 * Decodes a PNG in a blank Chromium page and counts its pixels: its size, how many are near
 * `color` (a series' colour), how many are not white, and how many dark ones are in the title strip.
 */
export async function pngFacts(
  browser: Browser,
  bytes: Buffer,
  color: [number, number, number],
  titleRows: number,
): Promise<PngFacts> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(
      async ({ b64, color, titleRows }) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement("canvas");
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const ctx = canvas.getContext("2d")!;
        ctx.drawImage(img, 0, 0);
        const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        let colorPixels = 0;
        let ink = 0;
        let titleInk = 0;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
          if (Math.abs(r - color[0]) + Math.abs(g - color[1]) + Math.abs(b - color[2]) < 60) colorPixels++;
          if (r + g + b < 720) ink++;
          if (i / 4 < canvas.width * titleRows && r + g + b < 250) titleInk++;
        }
        return {
          width: canvas.width,
          height: canvas.height,
          colorPixels,
          ink,
          titleInk,
        };
      },
      { b64: bytes.toString("base64"), color, titleRows },
    );
  } finally {
    await page.close();
  }
}
