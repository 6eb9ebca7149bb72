/**
 * Chart export for articles, the pure part: a standalone SVG document in the house style
 * (title, test conditions, the chart, legend, provenance), the PNG size, CSV text and
 * download names. The DOM part (capturing a drawn chart, rasterising) is in export-dom.ts.
 */

import { CHART_FONT } from "../components/chart-frame/chart-theme";

/** Article widths a chart can be exported for, in CSS px; the PNG is twice as wide. */
export const ARTICLE_WIDTHS = [560, 650, 800] as const;
export const DEFAULT_ARTICLE_WIDTH = 650;
export const PNG_SCALE = 2;

export interface LegendItem {
  label: string;
  color: string;
  /** The drive under review: drawn bold in the legend. */
  highlight?: boolean;
  /** A line drawn dashed (a read pass, a later pass): its swatch is a dashed line. */
  dashed?: boolean;
  /** A bar drawn lighter (the compressible bar of a pair). */
  opacity?: number;
}

/** What an exported image says about itself, besides the chart. */
export interface ExportMeta {
  title: string;
  /** Test conditions: plan, QD, span, data pattern, OP. */
  conditions?: string;
  /** Drive firmware, fio version, date. */
  provenance?: string;
  legend?: LegendItem[];
  /** Said when a result comes from a simulated drive (SIMULATED_MARK). */
  simulated?: string;
  /** Conditions that differ between the drives, rows set apart, drives without a result. */
  warnings?: string[];
}

/** The words every export and shared view carries when a result is from a simulated drive. */
export function simulatedMark(names: string[]): string | undefined {
  if (names.length === 0) return undefined;
  return `Simulated drive${names.length > 1 ? "s" : ""}: ${names.join(", ")} (results of drivelab's simulated drive or of a virtual bench's emulated controller, not of a real product)`;
}

export interface SvgLayout {
  width: number;
  height: number;
  /** Where the chart body starts and its size. */
  body: { x: number; y: number; width: number; height: number };
}

const PAD = 12;
const TITLE_SIZE = 16;
const TEXT_SIZE = 11;
const LINE = 16;
const TITLE_LINE = 21;
const PROV_SIZE = 9;
const PROV_LINE = 12;
const LEGEND_ITEM_GAP = 18;
const SWATCH = 10;

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** A rough text width for layout (no DOM): a generous average glyph width of a sans font,
 * wider for bold text, so that estimated lines never run past the real ones. */
export function textWidth(text: string, size: number, bold = false): number {
  return text.length * size * (bold ? 0.62 : 0.58);
}

/** Words of `text` broken into lines no wider than `width` at `size` px (estimated); a word
 * longer than a line is broken inside, never cut. */
export function wrapText(text: string, width: number, size: number, bold = false): string[] {
  const lines: string[] = [];
  const perLine = Math.max(4, Math.floor(width / (size * (bold ? 0.62 : 0.58))));
  let line = "";
  for (const whole of text.split(/\s+/).filter(Boolean)) {
    const pieces: string[] = [];
    for (let i = 0; i < whole.length; i += perLine) pieces.push(whole.slice(i, i + perLine));
    for (const word of pieces) {
      const next = line ? `${line} ${word}` : word;
      if (line && textWidth(next, size, bold) > width) {
        lines.push(line);
        line = word;
      } else {
        line = next;
      }
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Legend items laid out in rows that fit `width`: [x, row] per item, each item's label in
 * lines (a label wider than the row is wrapped, never run off the image) and the rows used. */
export function legendRows(
  items: LegendItem[],
  width: number,
  size = TEXT_SIZE,
): { positions: [number, number][]; lines: string[][]; rows: number } {
  const positions: [number, number][] = [];
  const lines: string[][] = [];
  const textRoom = width - SWATCH - 4;
  let x = 0;
  let row = 0;
  let rowsOfLine = 1; // the rows the tallest item of the current row takes
  for (const item of items) {
    const wrapped = textWidth(item.label, size) > textRoom ? wrapText(item.label, textRoom, size) : [item.label];
    const w = SWATCH + 4 + Math.max(...wrapped.map((l) => textWidth(l, size))) + LEGEND_ITEM_GAP;
    if (x > 0 && (x + w > width || wrapped.length > 1)) {
      x = 0;
      row += rowsOfLine;
      rowsOfLine = 1;
    }
    positions.push([x, row]);
    lines.push(wrapped);
    rowsOfLine = Math.max(rowsOfLine, wrapped.length);
    x += w;
  }
  return { positions, lines, rows: items.length ? row + rowsOfLine : 0 };
}

/** The chart body's width in an export of `articleWidth` (the margins are the house style's). */
export function exportBodyWidth(articleWidth: number): number {
  return articleWidth - 2 * PAD;
}

/** The text lines of the title, conditions and provenance for a body of `bodyWidth`. */
function textBlocks(meta: ExportMeta, bodyWidth: number) {
  return {
    title: wrapText(meta.title, bodyWidth, TITLE_SIZE, true),
    simulated: meta.simulated ? wrapText(meta.simulated, bodyWidth, TEXT_SIZE, true) : [],
    conditions: meta.conditions ? wrapText(meta.conditions, bodyWidth, TEXT_SIZE) : [],
    warnings: (meta.warnings ?? []).flatMap((w) => wrapText(`⚠ ${w}`, bodyWidth, TEXT_SIZE)),
    provenance: meta.provenance ? wrapText(meta.provenance, bodyWidth, PROV_SIZE) : [],
  };
}

/** Where each part goes for a chart body of bodyWidth x bodyHeight. */
export function svgLayout(meta: ExportMeta, bodyWidth: number, bodyHeight: number): SvgLayout {
  const blocks = textBlocks(meta, bodyWidth);
  let y =
    PAD +
    blocks.title.length * TITLE_LINE +
    (blocks.simulated.length + blocks.conditions.length + blocks.warnings.length) * LINE;
  y += 8;
  const legend = legendRows(meta.legend ?? [], bodyWidth);
  const body = { x: PAD, y: y + legend.rows * LINE, width: bodyWidth, height: bodyHeight };
  const bottom = body.y + bodyHeight + blocks.provenance.length * PROV_LINE + (blocks.provenance.length ? 4 : 0);
  return { width: bodyWidth + 2 * PAD, height: Math.ceil(bottom + PAD), body };
}

/**
 * The standalone SVG document: white background, inline font, title, conditions, legend,
 * the chart body (SVG markup drawn for bodyWidth x bodyHeight) and the provenance line.
 */
export function buildSvgDocument(
  meta: ExportMeta,
  bodyMarkup: string,
  bodyWidth: number,
  bodyHeight: number,
): string {
  const { width, height, body } = svgLayout(meta, bodyWidth, bodyHeight);
  const blocks = textBlocks(meta, bodyWidth);
  const font = escapeXml(CHART_FONT);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ` +
      `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="${font}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  const text = (lines: string[], top: number, lineHeight: number, attrs: string, kind: string) =>
    parts.push(
      `<text ${attrs} data-export="${kind}">` +
        lines
          .map(
            (l, i) =>
              `<tspan x="${PAD}" y="${top + (i + 1) * lineHeight - 4}">${escapeXml(l)}</tspan>`,
          )
          .join("") +
        "</text>",
    );
  let y = PAD;
  text(blocks.title, y, TITLE_LINE, `font-size="${TITLE_SIZE}" font-weight="600" fill="#1b2530"`, "title");
  y += blocks.title.length * TITLE_LINE;
  if (blocks.simulated.length) {
    text(blocks.simulated, y, LINE, `font-size="${TEXT_SIZE}" font-weight="700" fill="#9a3412"`, "simulated");
    y += blocks.simulated.length * LINE;
  }
  if (blocks.conditions.length) {
    text(blocks.conditions, y, LINE, `font-size="${TEXT_SIZE}" fill="#4a5663"`, "conditions");
    y += blocks.conditions.length * LINE;
  }
  if (blocks.warnings.length) {
    text(blocks.warnings, y, LINE, `font-size="${TEXT_SIZE}" fill="#92400e"`, "warnings");
    y += blocks.warnings.length * LINE;
  }
  const legend = legendRows(meta.legend ?? [], bodyWidth);
  const legendTop = y + 8;
  (meta.legend ?? []).forEach((item, i) => {
    const [lx, row] = legend.positions[i] ?? [0, 0];
    const ty = legendTop + row * LINE + 11;
    const label = legend.lines[i] ?? [item.label];
    parts.push(
      item.dashed
        ? `<line x1="${PAD + lx}" x2="${PAD + lx + SWATCH}" y1="${ty - 4}" y2="${ty - 4}" ` +
            `stroke="${escapeXml(item.color)}" stroke-width="2" stroke-dasharray="3 2"/>`
        : `<rect x="${PAD + lx}" y="${ty - SWATCH + 1}" width="${SWATCH}" height="${SWATCH}" ` +
            `fill="${escapeXml(item.color)}"${item.opacity !== undefined ? ` fill-opacity="${item.opacity}"` : ""}/>`,
      `<text x="${PAD + lx + SWATCH + 4}" y="${ty}" font-size="${TEXT_SIZE}" fill="#1b2530"` +
        `${item.highlight ? ' font-weight="700"' : ""} data-export="legend">` +
        (label.length === 1
          ? escapeXml(item.label)
          : label
              .map(
                (l, j) =>
                  `<tspan x="${PAD + lx + SWATCH + 4}" y="${ty + j * LINE}">${escapeXml(l)}</tspan>`,
              )
              .join("")) +
        `</text>`,
    );
  });
  parts.push(
    `<svg x="${body.x}" y="${body.y}" width="${body.width}" height="${body.height}" ` +
      `viewBox="0 0 ${body.width} ${body.height}" overflow="hidden">${bodyMarkup}</svg>`,
  );
  if (blocks.provenance.length) {
    text(
      blocks.provenance,
      body.y + body.height + 4,
      PROV_LINE,
      `font-size="${PROV_SIZE}" fill="#6b7785"`,
      "provenance",
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}

/** The PNG's pixel size for an SVG of width x height at `scale`. */
export function pngSize(
  width: number,
  height: number,
  scale = PNG_SCALE,
): { width: number; height: number } {
  return { width: Math.round(width * scale), height: Math.round(height * scale) };
}

/**
 * A measured value rounded to what the measurement supports: four significant digits
 * (fio's runtimes are in milliseconds and its latencies in nanosecond buckets), whole
 * numbers from 10,000 up. 3512.3456 -> 3512, 85.23456 -> 85.23, 0.0123456 -> 0.01235.
 */
export function roundMeasured(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  if (Math.abs(value) >= 10_000) return Math.round(value);
  return Number(value.toPrecision(4));
}

function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * A header whose names are all different, as pandas and spreadsheets need them to read it
 * unchanged: a name met again is said with what it is ("firmware" of a condition the drives
 * differ in after the provenance's "firmware": "firmware (condition)"), then numbered.
 */
export function uniqueHeader(header: string[], again = "condition"): string[] {
  const seen = new Set<string>();
  return header.map((name) => {
    let out = name;
    if (seen.has(out)) out = `${name} (${again})`;
    for (let i = 2; seen.has(out); i++) out = `${name} (${again} ${i})`;
    seen.add(out);
    return out;
  });
}

/** CSV text with a header row (its names made unique: uniqueHeader); numbers as given. */
export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  return [uniqueHeader(header), ...rows].map((row) => row.map(csvCell).join(",")).join("\n") + "\n";
}

/** What a CSV states about its data in its leading `# ` lines. */
export interface CsvAbout {
  title: string;
  /** The metric id(s) and unit: "four-corners:randread-4k-qd3:read_iops (IOPS)". */
  metric?: string;
  conditions?: string;
  simulated?: string;
  warnings?: string[];
  provenance?: string;
  /** How sure the differences are (the method and the verdicts), when the chart has them. */
  significance?: string;
}

/** A CSV whose leading `# name: value` lines say what it holds (spreadsheets and pandas'
 * comment="#" skip them), then the header and rows; numbers rounded (roundMeasured). */
export function csvDocument(
  about: CsvAbout,
  header: string[],
  rows: (string | number | null | undefined)[][],
): string {
  const line = (name: string, value: string | undefined) =>
    value ? `# ${name}: ${value.replace(/[\r\n]+/g, " ")}\n` : "";
  const head =
    line("title", about.title) +
    line("metric", about.metric) +
    line("conditions", about.conditions) +
    line("simulated", about.simulated) +
    (about.warnings ?? []).map((w) => line("warning", w)).join("") +
    line("provenance", about.provenance) +
    line("significance", about.significance);
  const rounded = rows.map((row) => row.map((v) => (typeof v === "number" ? roundMeasured(v) : v)));
  return head + toCsv(header, rounded);
}

/**
 * A download name from its parts: `compare-consistency-linear.svg`. Words a part repeats
 * from the one before are said once: ["compare", "compare-qd-sweep-iops"] ->
 * compare-qd-sweep-iops, never compare-compare-qd-sweep-iops.
 */
export function exportFileName(parts: string[], extension: string): string {
  const words: string[] = [];
  for (const part of parts) {
    const slug = part
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    if (!slug) continue;
    let own = slug.split("-");
    // The longest run of words at the end of the name so far that this part begins with.
    for (let n = Math.min(words.length, own.length); n > 0; n--) {
      if (words.slice(words.length - n).join("-") === own.slice(0, n).join("-")) {
        own = own.slice(n);
        break;
      }
    }
    words.push(...own);
  }
  return `${words.join("-") || "chart"}.${extension}`;
}
