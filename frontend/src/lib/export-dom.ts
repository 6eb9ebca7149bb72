/**
 * Chart export, the browser part: capture the SVG a chart drew (Recharts or our own) as
 * standalone markup with its computed styles inlined, draw an SVG on a canvas for the PNG,
 * and hand a file to the browser as a download.
 */

import { escapeXml, pngSize, PNG_SCALE } from "./export-utils";

/** Presentation properties copied from the computed style, so the file looks as drawn. */
const STYLE_PROPS = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-dasharray",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "dominant-baseline",
  "visibility",
] as const;

function inlineStyles(source: Element, target: Element): void {
  const computed = getComputedStyle(source);
  const style = STYLE_PROPS.map((p) => `${p}:${computed.getPropertyValue(p)}`)
    .filter((s) => !s.endsWith(":"))
    .join(";");
  if (computed.getPropertyValue("display") === "none") target.setAttribute("display", "none");
  target.setAttribute("style", style);
  target.removeAttribute("class");
  const from = source.children;
  const to = target.children;
  for (let i = 0; i < from.length && i < to.length; i++) {
    const a = from[i];
    const b = to[i];
    if (a && b) inlineStyles(a, b);
  }
}

/** Surfaces to export: every chart SVG in the plot, not legend icons or nested ones. */
function surfaces(plot: HTMLElement): SVGSVGElement[] {
  return Array.from(plot.querySelectorAll<SVGSVGElement>("svg")).filter(
    (svg) =>
      !svg.closest(".recharts-legend-wrapper, [data-export-skip]") &&
      !svg.parentElement?.closest("svg"),
  );
}

/**
 * The plot's drawing as SVG markup in the plot's own coordinates (its CSS px box): each
 * chart surface where it sits, plus HTML labels marked data-export-text (panel titles).
 */
export function capturePlot(plot: HTMLElement): { markup: string; width: number; height: number } {
  const box = plot.getBoundingClientRect();
  const parts: string[] = [];
  for (const svg of surfaces(plot)) {
    const r = svg.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const clone = svg.cloneNode(true) as SVGSVGElement;
    inlineStyles(svg, clone);
    clone.setAttribute("x", String(Math.round(r.left - box.left)));
    clone.setAttribute("y", String(Math.round(r.top - box.top)));
    clone.setAttribute("width", String(Math.round(r.width)));
    clone.setAttribute("height", String(Math.round(r.height)));
    if (!clone.getAttribute("viewBox")) {
      clone.setAttribute("viewBox", `0 0 ${Math.round(r.width)} ${Math.round(r.height)}`);
    }
    clone.removeAttribute("tabindex");
    parts.push(new XMLSerializer().serializeToString(clone));
  }
  for (const el of Array.from(plot.querySelectorAll<HTMLElement>("[data-export-text]"))) {
    const r = el.getBoundingClientRect();
    const text = el.getAttribute("data-export-text") || el.textContent || "";
    if (!text || r.width === 0) continue;
    const cs = getComputedStyle(el);
    const size = parseFloat(cs.fontSize) || 12;
    const lineHeight = parseFloat(cs.lineHeight) || Math.round(size * 1.3);
    // Wrapped at the label's own width as the page wraps it (measured in its font), never
    // run into the next panel's label.
    const lines = wrapMeasured(text, r.width, `${cs.fontWeight} ${size}px ${cs.fontFamily}`);
    const x = Math.round(r.left - box.left);
    parts.push(
      `<text x="${x}" y="${Math.round(r.top - box.top + size)}" ` +
        `font-size="${size}" font-weight="${cs.fontWeight}" fill="${cs.color}">` +
        lines
          .map(
            (l, i) =>
              `<tspan x="${x}" y="${Math.round(r.top - box.top + size + i * lineHeight)}">${escapeXml(l)}</tspan>`,
          )
          .join("") +
        `</text>`,
    );
  }
  return { markup: parts.join("\n"), width: Math.round(box.width), height: Math.round(box.height) };
}

let measureCtx: CanvasRenderingContext2D | null = null;

/** `text` in lines no wider than `width` px in `font` (measured on a canvas); a word wider
 * than a line stays whole on a line of its own. */
export function wrapMeasured(text: string, width: number, font: string): string[] {
  measureCtx ??= document.createElement("canvas").getContext("2d");
  const ctx = measureCtx;
  if (!ctx) return [text];
  ctx.font = font;
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && ctx.measureText(next).width > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** PNG encoders (png-worker.ts): two, one per core of a small machine; none where the
 * browser cannot start one (then the page's canvas encodes, as before). */
const ENCODERS = 2;

interface Encoder {
  worker: Worker;
  jobs: Map<number, { resolve: (blob: Blob) => void; reject: (err: Error) => void }>;
}

let encoders: Encoder[] | null = null;
let encodersBroken = false;
let nextJob = 0;

function startEncoders(): Encoder[] | null {
  if (encodersBroken || typeof Worker === "undefined") return null;
  if (encoders) return encoders;
  try {
    encoders = Array.from({ length: ENCODERS }, () => {
      const worker = new Worker(new URL("./png-worker.ts", import.meta.url), { type: "module" });
      const encoder: Encoder = { worker, jobs: new Map() };
      worker.onmessage = (event: MessageEvent<import("./png-worker").PngAnswer>) => {
        const answer = event.data;
        const job = encoder.jobs.get(answer.id);
        encoder.jobs.delete(answer.id);
        if ("blob" in answer) job?.resolve(answer.blob);
        else job?.reject(new Error(`the PNG could not be encoded: ${answer.error}`));
      };
      worker.onerror = (event) => {
        // The worker could not start (or died): its jobs and every later PNG on the page.
        event.preventDefault();
        encodersBroken = true;
        encoders = null;
        const err = new Error(`the PNG encoder stopped: ${event.message || "no reason given"}`);
        for (const job of encoder.jobs.values()) job.reject(err);
        encoder.jobs.clear();
        worker.terminate();
      };
      return encoder;
    });
  } catch {
    encodersBroken = true;
    encoders = null;
  }
  return encoders;
}

/** The bitmap encoded as a PNG by the least busy encoder; null: no encoder to ask. */
function encodeInWorker(bitmap: ImageBitmap): Promise<Blob> | null {
  const pool = startEncoders();
  if (!pool || pool.length === 0) return null;
  const encoder = pool.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
  const id = nextJob++;
  return new Promise<Blob>((resolve, reject) => {
    encoder.jobs.set(id, { resolve, reject });
    encoder.worker.postMessage({ id, bitmap }, [bitmap]);
  });
}

/** The SVG loaded as an image from `url` (parsed and ready to draw). */
async function loadImage(url: string, width: number, height: number): Promise<HTMLImageElement> {
  const image = new Image();
  image.width = width;
  image.height = height;
  await new Promise<void>((resolve, reject) => {
    image.onload = () => resolve();
    image.onerror = () => reject(new Error("the chart's SVG could not be drawn as an image"));
    image.src = url;
  });
  return image;
}

/**
 * The SVG drawn on a canvas at `scale` times its size, on white, as a PNG. The drawing is
 * the page's (an SVG image draws only there); the PNG encoding a worker's (png-worker.ts),
 * where it starts at once instead of waiting for the page to be idle.
 */
export async function svgToPng(
  svg: string,
  width: number,
  height: number,
  scale = PNG_SCALE,
): Promise<Blob> {
  const size = pngSize(width, height, scale);
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml;charset=utf-8" }));
  try {
    return await drawPng(await loadImage(url, width, height), size);
  } finally {
    URL.revokeObjectURL(url);
  }
}

async function drawPng(image: HTMLImageElement, size: { width: number; height: number }): Promise<Blob> {
  if (typeof OffscreenCanvas !== "undefined") {
    const off = new OffscreenCanvas(size.width, size.height);
    const octx = off.getContext("2d");
    if (octx) {
      octx.fillStyle = "#ffffff";
      octx.fillRect(0, 0, size.width, size.height);
      octx.drawImage(image, 0, 0, size.width, size.height);
      if (!encodersBroken && typeof Worker !== "undefined") {
        // A copy for the worker: this canvas stays to encode here should the worker fail.
        const encoded = encodeInWorker(await createImageBitmap(off));
        if (encoded) {
          try {
            return await encoded;
          } catch (err) {
            if (!encodersBroken) throw err;
          }
        }
      }
      return await off.convertToBlob({ type: "image/png" });
    }
  }
  const canvas = document.createElement("canvas");
  canvas.width = size.width;
  canvas.height = size.height;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("this browser gives no 2D canvas to draw the PNG on");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, size.width, size.height);
  ctx.drawImage(image, 0, 0, size.width, size.height);
  return await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png"),
  );
}

export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadText(text: string, fileName: string, type: string): void {
  downloadBlob(new Blob([text], { type }), fileName);
}
