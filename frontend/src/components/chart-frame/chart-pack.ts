import { svgToPng } from "../../lib/export-dom";
import { mapLimit } from "../../lib/async-utils";
import { ZipStream } from "../../lib/zip-utils";
import type { ChartExporter, RenderedChart } from "./export-context";

/** PNGs drawn at once: the page draws the SVG images, two workers encode the PNGs
 * (export-dom.ts); a few at a time keep both busy. */
const RASTER_AT_ONCE = 4;

/**
 * Every chart's SVG, PNG (2x the article width) and CSV, and the tables' CSVs (the price
 * table), in one zip streamed by fflate. Every chart is asked for its drawing at once: their
 * off-screen copies are laid out together in one pass (not the page once per chart), and
 * each finished drawing is rasterised (its PNG encoded in a worker) and added to the archive
 * while the others still draw.
 */
export async function buildChartPack(
  exporters: ChartExporter[],
  articleWidth: number,
  onProgress?: (done: number, total: number) => void,
  /** Filled in as the pack is made: ms from the start until every chart was drawn off screen
   * (`drawn`) and until the zip was whole (`total`); for the browser benchmark. */
  timings?: { drawn?: number; total?: number },
): Promise<Blob> {
  const started = performance.now();
  const encoder = new TextEncoder();
  const used = new Set<string>();
  const named = exporters.map((exporter) => {
    let name = exporter.name;
    for (let i = 2; used.has(name); i++) name = `${exporter.name}-${i}`;
    used.add(name);
    return { exporter, name };
  });
  const zip = new ZipStream();
  let done = 0;
  const finished = () => {
    done += 1;
    onProgress?.(done, named.length);
  };
  // Tables (CSV only) go in first, at once.
  const charts = named.filter(({ exporter, name }) => {
    if (exporter.render) return true;
    const csv = exporter.csv?.();
    if (csv) zip.add(`${name}.csv`, encoder.encode(csv));
    finished();
    return false;
  });
  const drawings = charts.map(({ exporter }) => exporter.render!(articleWidth));
  // A failed drawing fails the pack where it is awaited; the others need no handler of their own.
  for (const d of drawings) d.catch(() => undefined);
  void Promise.all(drawings).then(
    () => {
      if (timings) timings.drawn = Math.round(performance.now() - started);
    },
    () => undefined,
  );
  // Rasterise in order of the page, a few at a time, as their drawings arrive; each chart's
  // files go into the zip in the order of the page, as soon as the charts before it are in.
  const ready: (() => void)[] = [];
  let added = 0;
  await mapLimit(charts, RASTER_AT_ONCE, async ({ exporter, name }, i) => {
    const out: RenderedChart = await drawings[i]!;
    const png = new Uint8Array(await (await svgToPng(out.svg, out.width, out.height)).arrayBuffer());
    ready[i] = () => {
      zip.add(`${name}.svg`, encoder.encode(out.svg));
      zip.add(`${name}.png`, png);
      const csv = exporter.csv?.();
      if (csv) zip.add(`${name}.csv`, encoder.encode(csv));
      finished();
    };
    while (added < charts.length && ready[added]) ready[added++]!();
  });
  const blob = await zip.finish();
  if (timings) timings.total = Math.round(performance.now() - started);
  return blob;
}
