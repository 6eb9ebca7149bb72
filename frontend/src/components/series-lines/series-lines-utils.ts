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
