import {
  Bar,
  BarChart,
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { Step } from "../../api/types";
import { tickFormat, yAxisWidth, zeroAxis } from "../../lib/axis-utils";
import { toCsv } from "../../lib/export-utils";
import { ChartFrame } from "../chart-frame/chart-frame";
import { AXIS_LABEL, AXIS_LINE, AXIS_TICK, CHART_FONT, GRID_STROKE, SERIES_COLORS } from "../chart-frame/chart-theme";
import { BURSTS_CSV_HEADER, burstsCsvRows, burstTests, figure, type BurstTest } from "./bursts-utils";
import "../cdm-table/cdm-table.css";

const HEIGHT = 200;
const MARGIN = { top: 6, right: 8, bottom: 18, left: 4 };

interface Props {
  runId: number;
  steps: Step[];
  conditions: string;
  provenance: string;
  simulated?: string;
}

/** One test's bursts: each burst's IOPS (random) or MB/s (sequential) over its own duration,
 * the mean as a dashed line. */
function BurstBars({ t, runId, conditions, provenance, simulated }: { t: BurstTest } & Omit<Props, "steps">) {
  const axis = zeroAxis(Math.max(0, ...t.points.map((p) => p.value)), 4);
  const format = tickFormat(axis.ticks);
  const color = t.direction === "read" ? SERIES_COLORS.read : SERIES_COLORS.write;
  return (
    <ChartFrame
      title={t.label}
      subtitle={`${t.unit === "MB/s" ? "MB/s (10⁶ bytes/s)" : "IOPS"} of each burst over its own duration · burst number`}
      height={HEIGHT}
      chartId={`bursts-${t.test}`}
      note={`Mean ${figure(t.mean)} ${t.unit} (dashed), slowest ${figure(t.min)}, fastest ${figure(t.max)}, spread ${t.spreadPct.toFixed(1)}%.`}
      exportAs={{
        fileName: ["run", String(runId), "bursts", t.test],
        title: `Run ${runId}: ${t.label}, bursts`,
        conditions,
        provenance,
        simulated,
        legend: [{ label: `${t.direction} ${t.unit}`, color }],
        csv: () => toCsv(BURSTS_CSV_HEADER, burstsCsvRows(t)),
      }}
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 400, height: HEIGHT }}>
        <BarChart data={t.points} margin={MARGIN} style={{ fontFamily: CHART_FONT }}>
          <CartesianGrid stroke={GRID_STROKE} vertical={false} />
          <XAxis
            dataKey="burst"
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            label={{ value: "burst", position: "insideBottomRight", offset: -8, style: AXIS_LABEL }}
          />
          <YAxis
            tick={AXIS_TICK}
            stroke={AXIS_LINE}
            domain={axis.domain}
            ticks={axis.ticks}
            tickFormatter={format}
            width={yAxisWidth(axis.ticks.map(format), false)}
            allowDataOverflow
          />
          <Tooltip
            isAnimationActive={false}
            labelFormatter={(label) => `burst ${String(label)}`}
            formatter={(value) => [`${figure(Number(value))} ${t.unit}`, t.direction]}
          />
          <ReferenceLine y={t.mean} stroke={AXIS_LINE} strokeDasharray="4 3" />
          <Bar dataKey="value" name={t.unit} fill={color} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

/** A QD1 burst run: each test's bursts drawn, and its figures (mean, slowest, fastest,
 * spread, shortest idle before a burst) with the finding in words. */
export function BurstsRun({ steps, ...rest }: Props) {
  const tests = burstTests(steps);
  if (tests.length === 0) return null;
  return (
    <section className="section" aria-labelledby="bursts-heading" data-chart="bursts-run">
      <div className="section__header">
        <h2 id="bursts-heading">QD1 bursts</h2>
      </div>
      <div className="section__body">
        <table className="cdm-table" data-testid="bursts-table">
          <thead>
            <tr>
              <th scope="col">test</th>
              <th scope="col">mean</th>
              <th scope="col">slowest</th>
              <th scope="col">fastest</th>
              <th scope="col">spread</th>
              <th scope="col">bursts</th>
              <th scope="col">idle before (s, least)</th>
            </tr>
          </thead>
          <tbody>
            {tests.map((t) => (
              <tr key={t.test} data-test={t.test}>
                <th scope="row">{t.label}</th>
                <td>
                  {figure(t.mean)} {t.unit}
                </td>
                <td>{figure(t.min)}</td>
                <td>{figure(t.max)}</td>
                <td>{t.spreadPct.toFixed(1)}%</td>
                <td>{t.points.length}</td>
                <td>{t.idleMinS !== null ? t.idleMinS.toFixed(1) : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ul className="muted" data-testid="bursts-notes">
          {tests.map((t) => (
            <li key={t.test}>{t.note}</li>
          ))}
        </ul>
        <div className="compare-grid">
          {tests.map((t) => (
            <div className="compare-card" key={t.test}>
              <BurstBars t={t} {...rest} />
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
