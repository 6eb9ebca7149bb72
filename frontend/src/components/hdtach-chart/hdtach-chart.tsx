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
  toLines,
} from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { SeriesLines } from "../series-lines/series-lines";
import { overlayText } from "../series-lines/series-lines-utils";

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
  const lines = useMemo(
    () =>
      toLines(query.data, styles, (role) => direction === "all" || role === `hdtach-${direction}`),
    [query.data, styles, direction],
  );
  const spec = SOURCES.find((s) => s.value === source) ?? SOURCES[0]!;
  const data = query.data?.drives ?? [];
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
      subtitle={`MB/s against % of the span, ${spec.title.toLowerCase()}`}
      height={300}
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
        legend: legendOf(lines, styles),
        csv: () => linesCsv(lines, "position_pct", "mbps", about),
      }}
    >
      <SeriesLines
        title={spec.title}
        lines={lines}
        xLabel="position (% of span)"
        yLabel="MB/s"
        xDomain={[0, 100]}
        xTicks={X_TICKS}
      />
    </ChartFrame>
  );
}
