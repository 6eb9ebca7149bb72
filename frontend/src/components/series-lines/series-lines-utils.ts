/** What a comparison chart shows instead of its plot while it cannot draw. */
export function overlayText(
  drives: number[],
  query: { isPending: boolean; error: Error | null },
  lineCount: number,
  noneText: string,
): string | undefined {
  if (drives.length === 0) return "Choose drives to compare.";
  if (query.isPending) return "Loading…";
  if (query.error) return `Could not load: ${query.error.message}`;
  if (lineCount === 0) return `None of these drives has data: ${noneText}.`;
  return undefined;
}

/** Log-scale ticks for transfer sizes in [lo, hi]: powers of 2, every other one when many. */
export function blockSizeTicks(lo: number, hi: number): number[] {
  let ticks: number[] = [];
  for (let v = 512; v <= hi * 1.0001; v *= 2) if (v >= lo * 0.9999) ticks.push(v);
  while (ticks.length > 8) ticks = ticks.filter((_v, i) => i % 2 === 0);
  return ticks;
}

/** A marker's label placed on the plot: its text anchored at `x`, on row `lane` from the top. */
export interface PlacedLabel {
  key: string;
  x: number;
  anchor: "start" | "end";
  lane: number;
}

/**
 * Labels of vertical marks (step-downs) laid out so that none overlaps another: each sits
 * left of its line (right of it when there is no room on the left), on the first row from the
 * top where it clears the labels already there by `gap` px. `marks`: the line's x in px and
 * the label's width; `left`, `right`: the plot's edges.
 */
export function markerLanes(
  marks: { key: string; px: number; width: number }[],
  left: number,
  right: number,
  gap = 6,
): PlacedLabel[] {
  const lanes: [number, number][][] = [];
  const placed: PlacedLabel[] = [];
  for (const m of [...marks].sort((a, b) => a.px - b.px)) {
    const onLeft = m.px - 3 - m.width >= left || m.px + 3 + m.width > right;
    const span: [number, number] = onLeft ? [m.px - 3 - m.width, m.px - 3] : [m.px + 3, m.px + 3 + m.width];
    let lane = lanes.findIndex((taken) => taken.every(([a, b]) => span[1] + gap <= a || span[0] >= b + gap));
    if (lane === -1) {
      lanes.push([]);
      lane = lanes.length - 1;
    }
    lanes[lane]!.push(span);
    placed.push({ key: m.key, x: onLeft ? m.px - 3 : m.px + 3, anchor: onLeft ? "end" : "start", lane });
  }
  return placed;
}
