import { Link } from "react-router";
import { useCompareSource } from "../../api/results/source";
import { usePtsComparison, type PtsDriveResult, type PtsTestComparison } from "../../api/pts/queries";
import { formatMetric } from "../../lib/format-utils";
import { shortLabel } from "../../lib/series-utils";
import { ErrorBox } from "../error-box/error-box";
import {
  bsLabel,
  cell,
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
          </div>
        ))}
      </div>
    </section>
  );
}
