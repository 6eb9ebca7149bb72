import { XAxis, YAxis } from "recharts";
import { tickFormat, yAxisWidth } from "../../lib/axis-utils";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK } from "../chart-frame/chart-theme";

interface Axis {
  domain: [number, number];
  ticks: number[];
}

/**
 * The thermal charts' axes (the Run page's and Compare's): t (s) along the bottom, MB/s on the
 * left, the drive's °C on the right (axis id "temp") when a temperature was read. Returned as
 * elements for the chart's children (Recharts reads its axes from them).
 */
export function thermalAxes(xKey: string, x: { end: number; ticks: number[] }, mbps: Axis, temp: Axis | null) {
  const yFormat = tickFormat(mbps.ticks);
  const tFormat = tickFormat(temp?.ticks ?? [0]);
  return [
    <XAxis
      key="x"
      dataKey={xKey}
      type="number"
      domain={[0, x.end]}
      ticks={x.ticks}
      allowDataOverflow
      tick={AXIS_TICK}
      stroke={AXIS_LINE}
      label={{ value: "t (s)", position: "insideBottomRight", offset: -8, style: AXIS_LABEL }}
    />,
    <YAxis
      key="mbps"
      width={yAxisWidth(mbps.ticks.map(yFormat))}
      tick={AXIS_TICK}
      stroke={AXIS_LINE}
      domain={mbps.domain}
      ticks={mbps.ticks}
      allowDataOverflow
      tickFormatter={yFormat}
      label={{ value: "MB/s", angle: -90, position: "insideLeft", offset: 8, style: AXIS_LABEL }}
    />,
    temp && (
      <YAxis
        key="temp"
        yAxisId="temp"
        orientation="right"
        width={yAxisWidth(temp.ticks.map(tFormat))}
        tick={AXIS_TICK}
        stroke={AXIS_LINE}
        domain={temp.domain}
        ticks={temp.ticks}
        allowDataOverflow
        tickFormatter={tFormat}
        label={{ value: "°C", angle: 90, position: "insideRight", offset: 8, style: AXIS_LABEL }}
      />
    ),
  ];
}
