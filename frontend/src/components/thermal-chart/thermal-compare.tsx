import { useMemo } from "react";
import {
  CartesianGrid,
  Line as RechartsLine,
  LineChart,
  ResponsiveContainer,
} from "recharts";
import { useCompareSeries } from "../../api/results/queries";
import { zeroAxis } from "../../lib/axis-utils";
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
import { CHART_FONT, GRID_STROKE } from "../chart-frame/chart-theme";
import { temperatureRange, timeAxis } from "../run-chart/run-chart-utils";
import { thermalAxes } from "./thermal-axes";
import { overlayText } from "../series-lines/series-lines-utils";
import { withBreaks } from "./thermal-utils";

interface Props {
  drives: number[];
  styles: Map<number, DriveStyle>;
  fileBase: string;
}

const HEIGHT = 300;
const MARGIN = { top: 6, right: 4, bottom: 20, left: 4 };
/**
 * The thermal plan on Compare: each drive's latest thermal run over its whole time line
 * (heat and cool phases one after the other), MB/s solid on the left axis and the drive's
 * temperature dashed on the right axis, in the drive's colour.
 */
export function ThermalCompare({ drives, styles, fileBase }: Props) {
  const query = useCompareSeries({ drives, plan: "thermal", points: 1000 });
  const speed = useMemo(
    () =>
      toLines(query.data, styles, (r) => r === "thermal-mbps").map((l) => ({
        ...l,
        label: `${l.label}, MB/s`,
        dashed: false,
      })),
    [query.data, styles],
  );
  const temp = useMemo(
    () =>
      toLines(query.data, styles, (r) => r === "thermal-temp").map((l) => ({
        ...l,
        label: `${l.label}, °C`,
        dashed: true,
      })),
    [query.data, styles],
  );
  const lines = [...speed, ...temp];
  const x = timeAxis(maxX(lines), true);
  const yAxis = useMemo(() => {
    let top = 0;
    for (const l of speed) for (const [, y] of l.points) top = Math.max(top, y);
    return zeroAxis(top, 4);
  }, [speed]);
  const tAxis = useMemo(() => temperatureRange(temp.flatMap((l) => l.points.map(([, y]) => y))), [temp]);
  const data = query.data?.drives ?? [];
  const about = {
    title: "Throughput and temperature under a sustained load",
    metric: "thermal: MB/s (left) and °C (right, dashed) against t (s) since the first phase",
    conditions: conditionsLine(data),
    provenance: provenanceLine(data),
    simulated: seriesSimulated(data),
    warnings: seriesWarnings(query.data, styles),
  };
  return (
    <ChartFrame
      title="Thermal"
      subtitle="MB/s (solid, left) and drive temperature °C (dashed, right) against t (s), heat and cool phases in turn"
      height={HEIGHT}
      overlay={overlayText(drives, query, lines.length, "no finished thermal run")}
      chartId="thermal"
      exportAs={{
        fileName: [fileBase, "thermal"],
        ...about,
        legend: legendOf(lines, styles),
        csv: () => linesCsv([...speed, ...temp], "t_s", "value", about),
      }}
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: HEIGHT }}>
        <LineChart margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
          {thermalAxes("x", x, yAxis, tAxis)}
          {speed.map((l) => (
            <RechartsLine
              key={l.key}
              data={withBreaks(l.points)}
              dataKey="y"
              name={l.label}
              type="linear"
              stroke={l.color}
              strokeWidth={l.width}
              dot={false}
              isAnimationActive={false}
            />
          ))}
          {tAxis &&
            temp.map((l) => (
              <RechartsLine
                key={l.key}
                yAxisId="temp"
                data={withBreaks(l.points)}
                dataKey="y"
                name={l.label}
                type="linear"
                stroke={l.color}
                strokeWidth={l.width}
                strokeDasharray="5 3"
                dot={false}
                isAnimationActive={false}
              />
            ))}
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
