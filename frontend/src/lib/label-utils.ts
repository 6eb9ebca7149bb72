/**
 * Where a chart's own labels go (a point's queue depth, a reference line's "target 1.00 ms"):
 * the first of a few places beside their anchor that stays inside the plot and clears every
 * point, mark and label already placed. Pure: pixel boxes in, pixel boxes out.
 */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function overlaps(a: Box, b: Box, gap = 0): boolean {
  return a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;
}

export function inside(a: Box, bounds: Box): boolean {
  return a.x0 >= bounds.x0 && a.x1 <= bounds.x1 && a.y0 >= bounds.y0 && a.y1 <= bounds.y1;
}

/** A square of half-size `r` around a point: what a dot covers. */
export const pointBox = (x: number, y: number, r = 3.5): Box => ({ x0: x - r, y0: y - r, x1: x + r, y1: y + r });

export interface LabelRequest {
  key: string;
  /** The anchor (the point, or a spot on a line) in px. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Where to try, in order; the default: right above, left above, right below, left below,
   * above, below. */
  places?: Place[];
}

export type Place = "ne" | "nw" | "se" | "sw" | "n" | "s";

export interface PlacedText {
  key: string;
  /** Text position: x with the anchor, y the baseline. */
  x: number;
  y: number;
  anchor: "start" | "middle" | "end";
  box: Box;
}

const DEFAULT_PLACES: Place[] = ["ne", "nw", "se", "sw", "n", "s"];

function boxAt(r: LabelRequest, place: Place, gap: number): Box {
  const { x, y, width: w, height: h } = r;
  switch (place) {
    case "ne":
      return { x0: x + gap, y0: y - gap - h, x1: x + gap + w, y1: y - gap };
    case "nw":
      return { x0: x - gap - w, y0: y - gap - h, x1: x - gap, y1: y - gap };
    case "se":
      return { x0: x + gap, y0: y + gap, x1: x + gap + w, y1: y + gap + h };
    case "sw":
      return { x0: x - gap - w, y0: y + gap, x1: x - gap, y1: y + gap + h };
    case "n":
      return { x0: x - w / 2, y0: y - gap - 2 - h, x1: x + w / 2, y1: y - gap - 2 };
    case "s":
      return { x0: x - w / 2, y0: y + gap + 2, x1: x + w / 2, y1: y + gap + 2 + h };
  }
}

/**
 * Labels placed in turn, each at its first place that lies inside `bounds` and overlaps no
 * obstacle and no label placed before it (by `gap` px). A label with no such place is left
 * out (returned in `dropped`), never drawn over something.
 */
export function placeLabels(
  requests: LabelRequest[],
  obstacles: Box[],
  bounds: Box,
  gap = 2,
): { placed: PlacedText[]; dropped: string[] } {
  const placed: PlacedText[] = [];
  const dropped: string[] = [];
  const taken = [...obstacles];
  for (const r of requests) {
    let done = false;
    for (const place of r.places ?? DEFAULT_PLACES) {
      const box = boxAt(r, place, gap + 2);
      if (!inside(box, bounds) || taken.some((o) => overlaps(box, o, gap))) continue;
      const anchor = place === "n" || place === "s" ? "middle" : place.endsWith("e") ? "start" : "end";
      const x = anchor === "start" ? box.x0 : anchor === "end" ? box.x1 : (box.x0 + box.x1) / 2;
      // The baseline sits a fifth of the height above the box's bottom (descenders).
      placed.push({ key: r.key, x, y: box.y1 - (box.y1 - box.y0) * 0.2, anchor, box });
      taken.push(box);
      done = true;
      break;
    }
    if (!done) dropped.push(r.key);
  }
  return { placed, dropped };
}
