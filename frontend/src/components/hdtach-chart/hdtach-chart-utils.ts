import type { CompareSeries } from "../../api/results/types";
import { colorOf, type DriveStyle } from "../../lib/house-style";
import type { Marker } from "../series-lines/series-lines";

/** Each drive's step-downs as marks at their position, in its colour: "↓ 24→12 MB/s". */
export function stepDownMarkers(
  data: CompareSeries | undefined,
  styles: Map<number, DriveStyle>,
  pick: (role: string | null | undefined) => boolean,
): Marker[] {
  const markers: Marker[] = [];
  for (const d of data?.drives ?? []) {
    for (const s of d.series) {
      if (!pick(s.role)) continue;
      (s.step_downs ?? []).forEach((sd, i) =>
        markers.push({
          key: `${d.drive_id}:${s.step_id}:${i}`,
          x: sd.at_pct,
          color: colorOf(styles, d.drive_id),
          label: `↓ ${formatMbps(sd.from_mbps)}→${formatMbps(sd.to_mbps)} MB/s${sd.heat === "thermal" ? " · heat" : ""}`,
        }),
      );
    }
  }
  return markers;
}

/** ", heat" or ", not heat" after a step-down whose cause drivelab told; nothing otherwise. */
function heatTag(heat: string | null | undefined): string {
  return heat === "thermal" ? ", heat" : heat === "not thermal" ? ", not heat" : "";
}

function formatMbps(v: number): string {
  return v >= 100 ? v.toFixed(0) : Number(v.toFixed(1)).toString();
}

/** "steps down at 31.3% (24→12 MB/s), 80.9% (12→6 MB/s)" per drive, for the legend. */
export function stepDownSummary(
  data: CompareSeries | undefined,
  pick: (role: string | null | undefined) => boolean,
): Map<number, string> {
  const out = new Map<number, string>();
  for (const d of data?.drives ?? []) {
    const passes = d.series.filter((s) => pick(s.role));
    const downs = passes.flatMap((s) =>
      (s.step_downs ?? []).map(
        (sd) =>
          `${Number(sd.at_pct.toFixed(1))}% (${formatMbps(sd.from_mbps)}→${formatMbps(sd.to_mbps)} MB/s${heatTag(sd.heat)})`,
      ),
    );
    if (passes.length) out.set(d.drive_id, downs.length ? `steps down at ${downs.join(", ")}` : "no step-down");
  }
  return out;
}
