import { useMemo, useState } from "react";
import { useCompareSeries } from "../../api/results/queries";
import type { DriveStyle } from "../../lib/house-style";
import {
  conditionsLine,
  legendOf,
  linesCsv,
  maxX,
  provenanceLine,
  seriesSimulated,
  seriesWarnings,
  toLines,
} from "../../lib/series-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { SeriesLines } from "../series-lines/series-lines";
import { overlayText } from "../series-lines/series-lines-utils";
import "../series-lines/series-lines.css";
import { stallAreas, stallSummary } from "./stall-timeline-utils";

interface Props {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

type Hitch = "hitch-seq" | "hitch-rand";

/** Write hitching and writes right after a TRIM: MB/s per 100 ms window, stalls shaded. */
export function StallTimeline({ drives, styles, fileBase }: Props) {
  const [hitch, setHitch] = useState<Hitch>("hitch-seq");
  const hitching = useCompareSeries({ drives, plan: "write-hitching", points: 1000 });
  const trim = useCompareSeries({ drives, plan: "trim-performance", points: 1000 });
  const pickHitch = (r: string | null | undefined) => r === hitch;
  const pickTrim = (r: string | null | undefined) => r === "trim-followup-write";
  const hitchLines = useMemo(
    () => toLines(hitching.data, styles, (r) => r === hitch),
    [hitching.data, styles, hitch],
  );
  const trimLines = useMemo(() => toLines(trim.data, styles, pickTrim), [trim.data, styles]);
  const hitchSummary = stallSummary(hitching.data, pickHitch);
  const trimSummary = stallSummary(trim.data, pickTrim);
  const legend = legendOf(hitchLines.length ? hitchLines : trimLines, styles).map((item, i) => {
    const id = (hitchLines.length ? hitchLines : trimLines)[i]?.driveId ?? -1;
    return {
      ...item,
      label: `${item.label} (hitching: ${hitchSummary.get(id) ?? "no run"}; after TRIM: ${
        trimSummary.get(id) ?? "no run"
      })`,
    };
  });
  const data = [...(hitching.data?.drives ?? []), ...(trim.data?.drives ?? [])];
  const pending = { isPending: hitching.isPending || trim.isPending, error: hitching.error ?? trim.error };
  const hitchTitle = hitch === "hitch-seq" ? "128K sequential write QD32" : "4K random write QD32";
  const about = {
    title: "Write stalls: sustained writes and writes right after a TRIM",
    metric: `write-hitching (${hitch}), trim-performance: MB/s per log window against time`,
    conditions: conditionsLine(data),
    provenance: provenanceLine(data),
    simulated: seriesSimulated(data),
    warnings: [
      ...seriesWarnings(hitching.data, styles).map((w) => `Write hitching: ${w}`),
      ...seriesWarnings(trim.data, styles).map((w) => `After a TRIM: ${w}`),
      // A panel without a run is left out (never an empty half of the image): said here.
      ...(trimLines.length && !hitchLines.length
        ? ["No drive has a finished write-hitching run: that panel is left out."]
        : []),
      ...(hitchLines.length && !trimLines.length
        ? ["No drive has a finished trim-performance run: that panel is left out."]
        : []),
    ],
  };
  return (
    <ChartFrame
      title="Stall timelines"
      subtitle="MB/s per log window against time; stalls shaded"
      height={278}
      overlay={overlayText(
        drives,
        pending,
        hitchLines.length + trimLines.length,
        "no finished write-hitching or trim-performance run",
      )}
      chartId="stalls"
      controls={
        <label className="chart-control">
          Hitching test{" "}
          <select value={hitch} onChange={(e) => setHitch(e.target.value as Hitch)}>
            <option value="hitch-seq">Sequential 128K</option>
            <option value="hitch-rand">Random 4K</option>
          </select>
        </label>
      }
      exportAs={{
        fileName: [fileBase, "stalls", hitch === "hitch-seq" ? "seq" : "rand"],
        ...about,
        legend,
        csv: () =>
          linesCsv(
            [
              ...hitchLines.map((l) => ({ ...l, label: `${l.label} ${hitch}` })),
              ...trimLines.map((l) => ({ ...l, label: `${l.label} after TRIM` })),
            ],
            "t_s",
            "mbps",
            about,
          ),
      }}
    >
      <div className="chart-panels">
        {(hitchLines.length > 0 || trimLines.length === 0) && <SeriesLines
          title={`Write hitching: ${hitchTitle}`}
          lines={hitchLines}
          xLabel="t (s)"
          yLabel="MB/s"
          xDomain={[0, Math.max(1, maxX(hitchLines))]}
          areas={stallAreas(hitching.data, styles, pickHitch)}
          empty="No finished write-hitching run"
        />}
        {(trimLines.length > 0 || hitchLines.length === 0) && <SeriesLines
          title="Sequential write right after a TRIM"
          lines={trimLines}
          xLabel="t (s)"
          yLabel="MB/s"
          xDomain={[0, Math.max(1, maxX(trimLines))]}
          areas={stallAreas(trim.data, styles, pickTrim)}
          empty="No finished trim-performance run"
        />}
      </div>
    </ChartFrame>
  );
}
