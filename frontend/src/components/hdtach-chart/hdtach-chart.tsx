import { useMemo, useState } from "react";
import { useCompareSeries } from "../../api/results/queries";
import type { DriveStyle } from "../../lib/house-style";
import {
  conditionsLine,
  legendOf,
  linesCsv,
  provenanceLine,
  seriesSimulated,
  seriesWarnings,
  driveName,
  toLines,
} from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { SeriesLines } from "../series-lines/series-lines";
import { overlayText } from "../series-lines/series-lines-utils";
import { stepDownMarkers, stepDownSummary } from "./hdtach-chart-utils";

type Source = "hdtach" | "trim-validation";
const SOURCES: { value: Source; label: string; title: string }[] = [
  { value: "hdtach", label: "HD Tach passes", title: "Full-span write and read passes" },
  {
    value: "trim-validation",
    label: "TRIM validation",
    title: "Write passes after torture and after TRIM",
  },
];
const X_TICKS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
const X_TICKS_SMALL = [0, 25, 50, 75, 100];
/** More drives than this: one small panel per drive (on one scale) instead of one crowded plot. */
export const OVERLAY_MAX_DRIVES = 3;
const PANEL_ROW_HEIGHT = 220;

interface Props {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

/** HD Tach style: throughput against position on the drive, passes and drives overlaid. */
export function HdTachChart({ drives, styles, fileBase }: Props) {
  const [source, setSource] = useState<Source>("hdtach");
  const [direction, setDirection] = useState<"all" | "write" | "read">("all");
  const query = useCompareSeries({ drives, plan: source, points: 400 });
  const pick = (role: string | null | undefined) =>
    direction === "all" || role === `hdtach-${direction}`;
  const lines = useMemo(
    () => toLines(query.data, styles, (role) => direction === "all" || role === `hdtach-${direction}`),
    [query.data, styles, direction],
  );
  const markers = stepDownMarkers(query.data, styles, pick);
  const summary = stepDownSummary(query.data, pick);
  const legend = legendOf(lines, styles).map((item, i) => {
    const id = lines[i]?.driveId ?? -1;
    const said = summary.get(id);
    // One summary per drive, on its first line.
    return said && lines.findIndex((l) => l.driveId === id) === i
      ? { ...item, label: `${item.label} (${said})` }
      : item;
  });
  const spec = SOURCES.find((s) => s.value === source) ?? SOURCES[0]!;
  const data = query.data?.drives ?? [];
  // Small multiples: a panel per drive, its write (solid) and read (dashed) passes and its
  // step-downs, every panel on the same MB/s scale.
  const drawn = Array.from(new Set(lines.map((l) => l.driveId)));
  const multiples = drawn.length > OVERLAY_MAX_DRIVES;
  let yTop = 0;
  for (const l of lines) for (const [, y] of l.points) if (y > yTop) yTop = y;
  const rows = Math.ceil(drawn.length / 2);
  const names = new Map(data.map((d) => [d.drive_id, driveName(d)]));
  // With small multiples the legend names each drive once (its panel says the rest).
  const shownLegend = multiples
    ? [
        ...drawn.map((id) => ({
          label: `${names.get(id) ?? ""}${summary.get(id) ? ` (${summary.get(id)})` : ""}`,
          color: lines.find((l) => l.driveId === id)?.color ?? "#6b7785",
          highlight: styles.get(id)?.underReview ?? false,
        })),
        ...(lines.some((l) => l.dashed)
          ? [{ label: "later pass (read) dashed", color: "#5d6b7b", dashed: true }]
          : []),
      ]
    : legend;
  const about = {
    title: `Throughput against position: ${spec.title.toLowerCase()}`,
    metric: `${source}: MB/s against position (% of the span)`,
    conditions: conditionsLine(data),
    provenance: provenanceLine(data),
    simulated: seriesSimulated(data),
    warnings: seriesWarnings(query.data, styles),
  };
  return (
    <ChartFrame
      title="Throughput against position"
      subtitle={`MB/s against % of the span, ${spec.title.toLowerCase()}; step-downs marked (a drop of 20% or more between levels of at least 2% of the span)`}
      height={multiples ? rows * PANEL_ROW_HEIGHT : 300}
      overlay={overlayText(drives, query, lines.length, `no finished ${source} run`)}
      chartId="hdtach"
      controls={
        <>
          <label className="chart-control">
            Runs{" "}
            <select value={source} onChange={(e) => setSource(e.target.value as Source)}>
              {SOURCES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          {source === "hdtach" && (
            <label className="chart-control">
              Passes{" "}
              <select
                value={direction}
                onChange={(e) => setDirection(e.target.value as typeof direction)}
              >
                <option value="all">Write and read</option>
                <option value="write">Write</option>
                <option value="read">Read</option>
              </select>
            </label>
          )}
        </>
      }
      exportAs={{
        fileName: [fileBase, source === "hdtach" ? "hdtach" : "trim-validation", direction],
        ...about,
        legend: shownLegend,
        csv: () => linesCsv(lines, "position_pct", "mbps", about),
      }}
    >
      {multiples ? (
        <div className="chart-panels chart-panels--multiples" data-multiples={drawn.length}>
          {drawn.map((id) => (
            <SeriesLines
              key={id}
              title={`${names.get(id) ?? ""}${styles.get(id)?.underReview ? " (under review)" : ""}`}
              lines={lines.filter((l) => l.driveId === id)}
              xLabel="position (%)"
              yLabel="MB/s"
              xDomain={[0, 100]}
              xTicks={X_TICKS_SMALL}
              markers={markers.filter((m) => m.key.startsWith(`${id}:`))}
              yTop={yTop}
            />
          ))}
        </div>
      ) : (
        <SeriesLines
          title={spec.title}
          lines={lines}
          xLabel="position (% of span)"
          yLabel="MB/s"
          xDomain={[0, 100]}
          xTicks={X_TICKS}
          markers={markers}
        />
      )}
    </ChartFrame>
  );
}
