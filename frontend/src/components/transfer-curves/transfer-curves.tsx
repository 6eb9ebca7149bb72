import { useMemo } from "react";
import { useCompareSeries } from "../../api/results/queries";
import type { DriveStyle } from "../../lib/house-style";
import {
  conditionsLine,
  formatBlockSize,
  legendOf,
  linesCsv,
  provenanceLine,
  seriesSimulated,
  seriesWarnings,
  toLines,
} from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { SeriesLines } from "../series-lines/series-lines";
import { blockSizeTicks, overlayText } from "../series-lines/series-lines-utils";
import "../series-lines/series-lines.css";

interface Props {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

/** Transfer-size sweep (ATTO style): MB/s against transfer size, read and write panels. */
export function TransferCurves({ drives, styles, fileBase }: Props) {
  const query = useCompareSeries({ drives, plan: "transfer-size" });
  const read = useMemo(
    () => toLines(query.data, styles, (r) => r === "transfer-read"),
    [query.data, styles],
  );
  const write = useMemo(
    () => toLines(query.data, styles, (r) => r === "transfer-write"),
    [query.data, styles],
  );
  const sizes = [...read, ...write].flatMap((l) => l.points.map(([x]) => x));
  const lo = sizes.length ? Math.min(...sizes) : 512;
  const hi = sizes.length ? Math.max(...sizes) : 8 * 1024 ** 2;
  const ticks = blockSizeTicks(lo, hi);
  const data = query.data?.drives ?? [];
  const about = {
    title: "Sequential throughput against transfer size",
    metric: "transfer-size: MB/s against transfer size (bytes)",
    conditions: conditionsLine(data),
    provenance: provenanceLine(data),
    simulated: seriesSimulated(data),
    warnings: [
      ...seriesWarnings(query.data, styles),
      // A panel without a result is left out (never an empty half of the image): said here.
      ...(read.length && !write.length ? ["No drive has a write result: that panel is left out."] : []),
      ...(write.length && !read.length ? ["No drive has a read result: that panel is left out."] : []),
    ],
  };
  const panel = (title: string, lines: typeof read) => (
    <SeriesLines
      title={title}
      lines={lines}
      xLabel="transfer size (bytes)"
      yLabel="MB/s"
      xDomain={[lo, hi]}
      xTicks={ticks}
      xLog
      xFormat={formatBlockSize}
      empty={`No ${title.toLowerCase()} results`}
    />
  );
  return (
    <ChartFrame
      title="Transfer size"
      subtitle="MB/s against transfer size, sequential QD4"
      height={278}
      overlay={overlayText(drives, query, read.length + write.length, "no finished transfer-size run")}
      chartId="transfer"
      exportAs={{
        fileName: [fileBase, "transfer-size"],
        ...about,
        legend: legendOf(read.length ? read : write, styles),
        csv: () =>
          linesCsv(
            [
              ...read.map((l) => ({ ...l, label: `${l.label} read` })),
              ...write.map((l) => ({ ...l, label: `${l.label} write` })),
            ],
            "bs_bytes",
            "mbps",
            about,
          ),
      }}
    >
      <div className="chart-panels">
        {(read.length > 0 || write.length === 0) && panel("Read", read)}
        {(write.length > 0 || read.length === 0) && panel("Write", write)}
      </div>
    </ChartFrame>
  );
}
