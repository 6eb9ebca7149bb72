import type { CompareSeries } from "../../api/results/types";
import { colorOf, type DriveStyle } from "../../lib/house-style";
import type { Area } from "../series-lines/series-lines";

/** Each drive's stalls as shaded x ranges in its colour (at most `limit` per drive). */
export function stallAreas(
  data: CompareSeries | undefined,
  styles: Map<number, DriveStyle>,
  pick: (role: string | null | undefined) => boolean,
  limit = 60,
): Area[] {
  const areas: Area[] = [];
  for (const d of data?.drives ?? []) {
    for (const s of d.series) {
      if (!pick(s.role)) continue;
      (s.stalls ?? []).slice(0, limit).forEach((st, i) =>
        areas.push({
          key: `${d.drive_id}:${s.step_id}:${i}`,
          x1: st.start_s,
          x2: st.start_s + st.duration_s,
          color: colorOf(styles, d.drive_id),
        }),
      );
    }
  }
  return areas;
}

/** "3 stalls, longest 0.4 s" per drive for the legend. */
export function stallSummary(
  data: CompareSeries | undefined,
  pick: (role: string | null | undefined) => boolean,
): Map<number, string> {
  const out = new Map<number, string>();
  for (const d of data?.drives ?? []) {
    const stalls = d.series.filter((s) => pick(s.role)).flatMap((s) => s.stalls ?? []);
    const longest = Math.max(0, ...stalls.map((s) => s.duration_s));
    out.set(
      d.drive_id,
      stalls.length === 0
        ? "no stalls"
        : `${stalls.length} stall${stalls.length > 1 ? "s" : ""}, longest ${Number(longest.toFixed(2))} s`,
    );
  }
  return out;
}
