/**
 * An isometric 3D bar plot, laid out in plain SVG coordinates: rows (block sizes) go back
 * along one floor axis, columns (read/write mixes) along the other, bar height is the value.
 * Drawn as SVG polygons, so it exports as SVG and PNG like every other chart. Pure.
 */

import { niceTicks } from "../../lib/series-utils";

export interface IsoBar {
  row: number;
  col: number;
  value: number;
  /** Polygon point lists of the top, left and right faces. */
  top: string;
  left: string;
  right: string;
  /** Where the value label sits (above the top face). */
  labelX: number;
  labelY: number;
  /** Painter's order: bars further back are drawn first. */
  depth: number;
}

export interface IsoLayout {
  width: number;
  height: number;
  bars: IsoBar[];
  /** Floor grid lines and the vertical axis with its ticks. */
  floor: { x1: number; y1: number; x2: number; y2: number }[];
  axis: { x1: number; y1: number; x2: number; y2: number };
  ticks: { y: number; x: number; label: number }[];
  rowLabels: { x: number; y: number; text: string }[];
  colLabels: { x: number; y: number; text: string }[];
}

const COS30 = Math.cos(Math.PI / 6);
const SIN30 = 0.5;

/**
 * Lay out `cells[row][col]` (null: no bar) in a box of `width` px. Rows run from the front
 * (row 0) to the back; columns from left to right.
 */
export function isoLayout(
  cells: (number | null)[][],
  rowLabels: string[],
  colLabels: string[],
  width: number,
  height: number,
): IsoLayout {
  const rows = cells.length;
  const cols = Math.max(0, ...cells.map((r) => r.length));
  const max = Math.max(0, ...cells.flat().map((v) => (v === null ? 0 : v)));
  const ticks = niceTicks(0, max > 0 ? max : 1, 4);
  const top = ticks[ticks.length - 1] ?? 1;
  // Floor cell size u: the floor's projection spans (rows + cols) * u * cos30 horizontally.
  const marginX = 70;
  const u = Math.max(4, (width - 2 * marginX) / ((rows + cols) * COS30));
  const floorDepth = (rows + cols) * u * SIN30;
  const barMax = Math.max(40, height - floorDepth - 60);
  const originX = marginX + rows * u * COS30; // the floor's front-left corner
  const originY = height - 30;
  const project = (r: number, c: number, z: number): [number, number] => [
    originX + (c - r) * u * COS30,
    originY - (c + r) * u * SIN30 - z,
  ];
  const pts = (list: [number, number][]) =>
    list.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
  const bars: IsoBar[] = [];
  const inset = 0.18;
  cells.forEach((row, r) =>
    row.forEach((value, c) => {
      if (value === null) return;
      const h = (value / top) * barMax;
      const r0 = r + inset;
      const r1 = r + 1 - inset;
      const c0 = c + inset;
      const c1 = c + 1 - inset;
      const topFace = [project(r0, c0, h), project(r0, c1, h), project(r1, c1, h), project(r1, c0, h)];
      // The two sides at the bar's nearest edge (r0, c0) face the viewer: the column side
      // (c0) on the left of the screen, the row side (r0) on the right.
      const leftFace = [project(r0, c0, 0), project(r1, c0, 0), project(r1, c0, h), project(r0, c0, h)];
      const rightFace = [project(r0, c0, 0), project(r0, c1, 0), project(r0, c1, h), project(r0, c0, h)];
      const [lx, ly] = project((r0 + r1) / 2, (c0 + c1) / 2, h);
      bars.push({
        row: r,
        col: c,
        value,
        top: pts(topFace as [number, number][]),
        left: pts(leftFace as [number, number][]),
        right: pts(rightFace as [number, number][]),
        labelX: lx,
        labelY: ly - 4,
        depth: r + c,
      });
    }),
  );
  // Bars further back (higher on the screen) first, so nearer bars cover them.
  bars.sort((a, b) => b.depth - a.depth);
  const floor = [];
  for (let r = 0; r <= rows; r++) {
    const [x1, y1] = project(r, 0, 0);
    const [x2, y2] = project(r, cols, 0);
    floor.push({ x1, y1, x2, y2 });
  }
  for (let c = 0; c <= cols; c++) {
    const [x1, y1] = project(0, c, 0);
    const [x2, y2] = project(rows, c, 0);
    floor.push({ x1, y1, x2, y2 });
  }
  const [ax, ay] = project(rows, 0, 0);
  const axis = { x1: ax, y1: ay, x2: ax, y2: ay - barMax };
  return {
    width,
    height,
    bars,
    floor,
    axis,
    ticks: ticks.map((t) => ({ x: ax, y: ay - (t / top) * barMax, label: t })),
    rowLabels: rowLabels.map((text, r) => {
      const [x, y] = project(r + 0.5, 0, 0);
      return { x: x - 8, y: y + 4, text };
    }),
    colLabels: colLabels.map((text, c) => {
      const [x, y] = project(0, c + 0.5, 0);
      return { x: x + 4, y: y + 14, text };
    }),
  };
}
