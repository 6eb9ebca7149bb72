import { svgToPng } from "../../lib/export-dom";
import { zipStore, type ZipEntry } from "../../lib/zip-utils";
import type { ChartExporter } from "./export-context";

/** Every chart's SVG, PNG (2x the article width) and CSV, and the tables' CSVs (the price
 * table), in one store-only zip. */
export async function buildChartPack(
  exporters: ChartExporter[],
  articleWidth: number,
  onProgress?: (done: number, total: number) => void,
): Promise<Blob> {
  const entries: ZipEntry[] = [];
  const encoder = new TextEncoder();
  const used = new Set<string>();
  let done = 0;
  for (const exporter of exporters) {
    let name = exporter.name;
    for (let i = 2; used.has(name); i++) name = `${exporter.name}-${i}`;
    used.add(name);
    if (exporter.render) {
      const out = await exporter.render(articleWidth);
      const png = await svgToPng(out.svg, out.width, out.height);
      entries.push(
        { name: `${name}.svg`, data: encoder.encode(out.svg) },
        { name: `${name}.png`, data: new Uint8Array(await png.arrayBuffer()) },
      );
    }
    const csv = exporter.csv?.();
    if (csv) entries.push({ name: `${name}.csv`, data: encoder.encode(csv) });
    done += 1;
    onProgress?.(done, exporters.length);
  }
  return new Blob([zipStore(entries) as BlobPart], { type: "application/zip" });
}
