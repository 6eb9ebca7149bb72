import { Link } from "react-router";
import { useCompareSource } from "../../api/results/source";
import { usePtsComparison, type PtsDriveResult, type PtsTestComparison } from "../../api/pts/queries";
import { formatMetric } from "../../lib/format-utils";
import { shortLabel } from "../../lib/series-utils";
import { ErrorBox } from "../error-box/error-box";
import { XYChart } from "../pts-charts/pts-charts";
import { toCsv } from "../../lib/export-utils";
import {
  bsLabel,
  cell,
  diCurves,
  diffText,
  iopsGrid,
  latencyElements,
  pctDiff,
  reference,
  xsrStimuli,
} from "./pts-compare-utils";
import "./pts-compare.css";

function Diff({ value, base, lower = false }: { value: number | null; base: number | null; lower?: boolean }) {
  const d = diffText(pctDiff(value, base), lower);
  return <span className={`pts-compare__diff pts-compare__diff--${d.tone}`}>{d.text}</span>;
}

/** A drive's value and, but for the reference drive, its difference from the reference's. */
function ValueCell({ d, reference: ref, row, col, lower = false }: { d: PtsDriveResult; reference: PtsDriveResult; row: string; col: string; lower?: boolean }) {
  return (
    <td className="num">
      {formatMetric(cell(d, row, col))}
      {d !== ref && (
        <>
          {" "}
          <Diff value={cell(d, row, col)} base={cell(ref, row, col)} lower={lower} />
        </>
      )}
    </td>
  );
}

function DriveName({ d }: { d: PtsDriveResult }) {
  // A shared link's readers have no account: the run's report is not theirs to open.
  const { shareToken } = useCompareSource();
  return (
    <>
      {shareToken ? shortLabel(d.label) : <Link to={`/runs/${d.run_id}/report`}>{shortLabel(d.label)}</Link>}
      {d.under_review && <span className="muted"> (reference)</span>}
      {!d.steady && <span className="muted" title="steady state was not reached"> · not steady</span>}
    </>
  );
}

/** IOPS by block size and mix: the reference drive's table, and each other drive's cells as
 * its IOPS with the difference from the reference. */
function IopsTables({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const { sizes, mixes } = iopsGrid(test);
  return (
    <>
      {test.drives.map((d) => (
        <div key={d.drive_id} className="table-wrap">
          <table className="table pts-compare__table" data-testid={`pts-compare-iops-${d.drive_id}`}>
            <caption>
              <DriveName d={d} />
            </caption>
            <thead>
              <tr>
                <th scope="col">Block size</th>
                {mixes.map((m) => (
                  <th key={m} scope="col" className="num">R/W {m}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {sizes.map((bs) => (
                <tr key={bs}>
                  <th scope="row">{bsLabel(bs)}</th>
                  {mixes.map((m) => (
                    <ValueCell key={m} d={d} reference={ref} row={bs} col={m} />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </>
  );
}

function ThroughputTable({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const sizes = ["1m", "128k"].filter((bs) => test.drives.some((d) => d.values[bs]));
  return (
    <div className="table-wrap">
      <table className="table pts-compare__table" data-testid="pts-compare-throughput">
        <caption>MB/s (10^6 bytes/s), sequential</caption>
        <thead>
          <tr>
            <th scope="col">Drive</th>
            {sizes.flatMap((bs) => [
              <th key={`${bs}r`} scope="col" className="num">{bsLabel(bs)} read</th>,
              <th key={`${bs}w`} scope="col" className="num">{bsLabel(bs)} write</th>,
            ])}
          </tr>
        </thead>
        <tbody>
          {test.drives.map((d) => (
            <tr key={d.drive_id}>
              <th scope="row"><DriveName d={d} /></th>
              {sizes.flatMap((bs) =>
                (["read", "write"] as const).map((dir) => (
                  <ValueCell key={`${bs}${dir}`} d={d} reference={ref} row={bs} col={dir} />
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LatencyTable({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const elements = latencyElements(test);
  const fields = [
    ["mean", "average"],
    ["max", "maximum"],
    ["p99999", "p99.999"],
  ] as const;
  return (
    <div className="table-wrap">
      <table className="table pts-compare__table" data-testid="pts-compare-latency">
        <caption>Response times (µs, fio completion latency), lower is better</caption>
        <thead>
          <tr>
            <th scope="col">Element</th>
            <th scope="col">Drive</th>
            {fields.map(([, label]) => (
              <th key={label} scope="col" className="num">{label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {elements.flatMap((e) =>
            test.drives.map((d, i) => (
              <tr key={`${e.name}-${d.drive_id}`}>
                {i === 0 && <th scope="rowgroup" rowSpan={test.drives.length}>{e.label}</th>}
                <td><DriveName d={d} /></td>
                {fields.map(([key]) =>
                  key === "p99999" && cell(d, e.name, key) === null ? (
                    <td key={key} className="num" title={String(d.values[e.name]?.p99999_note ?? "not measured")}>
                      n/a
                    </td>
                  ) : (
                    <ValueCell key={key} d={d} reference={ref} row={e.name} col={key} lower />
                  ),
                )}
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}

function IopsFigures({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const rows = [...new Set(test.drives.flatMap((d) => Object.keys(d.values)))];
  const label = (r: string) => (r === "steady" ? "steady-state IOPS" : `${r.replace("wait-", "").replace("s", " s")} wait: write-period IOPS`);
  return (
    <div className="table-wrap">
      <table className="table pts-compare__table" data-testid={`pts-compare-${test.plan}`}>
        <thead>
          <tr>
            <th scope="col">Drive</th>
            {rows.map((r) => (
              <th key={r} scope="col" className="num">{label(r)}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {test.drives.map((d) => (
            <tr key={d.drive_id}>
              <th scope="row"><DriveName d={d} /></th>
              {rows.map((r) => (
                <ValueCell key={r} d={d} reference={ref} row={r} col="iops" />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Cross-stimulus recovery: each stimulus of each drive, its MB/s, the level it settled at,
 * the recovery time after the transition into it, and its response times. */
function XsrTable({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const stimuli = xsrStimuli(test);
  const fields = [
    ["mbps", "MB/s", false, null],
    ["settled_mbps", "settled MB/s", false, null],
    ["recovery_s", "recovery", true, "s"],
    ["lat_mean_us", "average response", true, "µs"],
    ["lat_max_us", "maximum response", true, "µs"],
  ] as const;
  return (
    <div className="table-wrap">
      <table className="table pts-compare__table" data-testid="pts-compare-xsr">
        <caption>
          Recovery: from the transition into the stimulus to the start of the level it settled at; lower is better
        </caption>
        <thead>
          <tr>
            <th scope="col">Stimulus</th>
            <th scope="col">Drive</th>
            {fields.map(([, label, , unit]) => (
              <th key={label} scope="col" className="num">
                {label}
                {unit && (
                  <>
                    {" "}(<span className="unit">{unit}</span>)
                  </>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {stimuli.flatMap((st) =>
            test.drives.map((d, i) => (
              <tr key={`${st.name}-${d.drive_id}`}>
                {i === 0 && <th scope="rowgroup" rowSpan={test.drives.length}>{st.label}</th>}
                <td><DriveName d={d} /></td>
                {fields.map(([key, , lower]) =>
                  key === "recovery_s" && st.first ? (
                    <td key={key} className="num" title="the first stimulus follows a purge, not a transition">—</td>
                  ) : (
                    <ValueCell key={key} d={d} reference={ref} row={st.name} col={key} lower={lower} />
                  ),
                )}
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}

const CURVE_COLORS = ["#c2410c", "#1d4ed8", "#059669", "#9333ea", "#ca8a04", "#0891b2", "#db2777", "#475569"];

/** DIRTH and ECW: the maximum, middle and minimum IOPS points of each drive, and the drives'
 * demand-intensity curves overlaid. */
function DemandIntensity({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const rows = ["max-iops", "mid-iops", "min-iops"];
  const curves = diCurves(test).map((c, i) => ({
    ...c,
    color: test.drives[i]?.under_review ? "#c2410c" : CURVE_COLORS[(i + 1) % CURVE_COLORS.length]!,
  }));
  const tocs = [...new Set(curves.flatMap((c) => c.points.map((p) => p[0])))].sort((a, b) => a - b);
  return (
    <>
      <div className="table-wrap">
        <table className="table pts-compare__table" data-testid={`pts-compare-${test.plan}`}>
          <caption>The IOPS points: maximum (highest IOPS within the ART ceiling), middle, minimum (TC1/QD1)</caption>
          <thead>
            <tr>
              <th scope="col">Point</th>
              <th scope="col">Drive</th>
              <th scope="col">TC / QD</th>
              <th scope="col" className="num">IOPS</th>
              <th scope="col" className="num">ART (<span className="unit">µs</span>)</th>
            </tr>
          </thead>
          <tbody>
            {rows.flatMap((r) =>
              test.drives.map((d, i) => (
                <tr key={`${r}-${d.drive_id}`}>
                  {i === 0 && <th scope="rowgroup" rowSpan={test.drives.length}>{r.replace("-iops", "")}</th>}
                  <td><DriveName d={d} /></td>
                  <td>{String(d.values[r]?.label ?? "—").replace(/^\w+ IOPS point, /, "")}</td>
                  <ValueCell d={d} reference={ref} row={r} col="iops" />
                  <ValueCell d={d} reference={ref} row={r} col="art_us" lower />
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
      <XYChart
        title="Demand intensity: IOPS against total outstanding I/O"
        subtitle="the best thread count at each TOC, one line a drive"
        xLabel="TOC"
        yLabel="IOPS"
        chartId={`pts-compare-${test.plan}-curve`}
        xLog
        xTicks={tocs}
        xFormat={(v) => String(Math.round(v))}
        series={curves}
        exportAs={{
          fileName: ["compare", test.plan, "demand-intensity"],
          title: `${test.title}: IOPS against TOC`,
          conditions: test.drives.map((d) => `${d.label}: ${d.profile ?? ""} run #${d.run_id}`).join("; "),
          provenance: test.drives.map((d) => `${d.label}${d.simulated ? " (simulated)" : ""}`).join(" · "),
          csv: () => toCsv(["drive", "toc", "iops"], curves.flatMap((c) => c.points.map(([x, y]) => [c.label, x, y]))),
        }}
      />
    </>
  );
}

/** CBW: each drive's composite-workload figures. */
function CbwTable({ test }: { test: PtsTestComparison }) {
  const ref = reference(test)!;
  const fields = [
    ["iops", "IOPS", false],
    ["mbps", "MB/s", false],
    ["lat_mean_us", "ART (µs)", true],
    ["lat_max_us", "MRT (µs)", true],
    ["p9999", "p99.99 (µs)", true],
  ] as const;
  return (
    <div className="table-wrap">
      <table className="table pts-compare__table" data-testid="pts-compare-pts-cbw">
        <thead>
          <tr>
            <th scope="col">Drive</th>
            {fields.map(([key, label]) => (
              <th key={key} scope="col" className="num">{label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {test.drives.map((d) => (
            <tr key={d.drive_id}>
              <th scope="row"><DriveName d={d} /></th>
              {fields.map(([key, , lower]) => (
                <ValueCell key={key} d={d} reference={ref} row="cbw" col={key} lower={lower} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Compare page's SNIA PTS section: every PTS test the chosen drives ran. */
export function PtsCompare({ driveIds, underReview }: { driveIds: number[]; underReview: number | null }) {
  const q = usePtsComparison(driveIds, underReview);
  if (q.isError) return <ErrorBox error={q.error} title="Could not load the SNIA PTS results" />;
  const tests = q.data?.tests ?? [];
  if (tests.length === 0) return null;
  return (
    <section className="section" aria-labelledby="pts-compare-heading">
      <div className="section__header">
        <h2 id="pts-compare-heading">SNIA PTS</h2>
        <span className="muted">each drive's latest run of each test; differences from the reference drive</span>
      </div>
      <div className="section__body pts-compare">
        {tests.map((t) => (
          <div key={t.plan} className="pts-compare__test">
            <h3>{t.title}</h3>
            {t.plan === "pts-iops" && <IopsTables test={t} />}
            {t.plan === "pts-throughput" && <ThroughputTable test={t} />}
            {t.plan === "pts-latency" && <LatencyTable test={t} />}
            {(t.plan === "pts-wsat" || t.plan === "pts-hir") && <IopsFigures test={t} />}
            {t.plan === "pts-xsr" && <XsrTable test={t} />}
            {(t.plan === "pts-dirth" || t.plan === "pts-ecw") && <DemandIntensity test={t} />}
            {t.plan === "pts-cbw" && <CbwTable test={t} />}
          </div>
        ))}
      </div>
    </section>
  );
}
