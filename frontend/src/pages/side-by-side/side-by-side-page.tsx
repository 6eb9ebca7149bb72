import { useSearchParams } from "react-router";
import { useDrives } from "../../api/drives/queries";
import { usePair } from "../../api/results/queries";
import { ErrorBox } from "../../components/error-box/error-box";
import { simulatedMark } from "../../lib/export-utils";
import { formatMetric } from "../../lib/format-utils";
import { driveName } from "../../lib/series-utils";
import { byPlan, differingText, formatDiff, planWarnings, verdict } from "./side-by-side-utils";
import "../compare/compare-page.css";
import "../shared/shared-page.css";
import "./side-by-side-page.css";

const idOf = (v: string | null) => (v && /^\d+$/.test(v) ? Number(v) : null);

/** Two drives, every metric both have, with B's difference from A; performance figures
 * coloured better or worse, and the conditions they were measured under where they differ. */
export function SideBySidePage() {
  const [params, setParams] = useSearchParams();
  const a = idOf(params.get("a"));
  const b = idOf(params.get("b"));
  const drives = useDrives();
  const pair = usePair(a, b);
  const set = (key: "a" | "b", value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const picker = (key: "a" | "b", value: number | null, label: string) => (
    <label className="chart-control">
      {label}{" "}
      <select value={value ?? ""} onChange={(e) => set(key, e.target.value)}>
        <option value="">choose a drive…</option>
        {(drives.data ?? []).map((d) => (
          <option key={d.id} value={d.id}>
            {driveName(d)}
            {d.simulated ? " (simulated)" : ""}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="page">
      <div className="page-header">
        <h1>Side by side</h1>
      </div>
      <div className="pair-pickers">
        {picker("a", a, "Drive A")}
        {picker("b", b, "Drive B")}
      </div>
      {a !== null && a === b && <p className="muted">Choose two different drives.</p>}
      {pair.error && <ErrorBox error={pair.error} title="Could not compare the two drives" />}
      {pair.isLoading && <p className="muted">Loading…</p>}
      {pair.data && (
        <p className="shared-page__simulated" data-testid="simulated-mark">
          {simulatedMark(
            [pair.data.a, pair.data.b].filter((d) => d.simulated).map((d) => driveName(d)),
          )}
        </p>
      )}
      {pair.data && pair.data.metrics.length === 0 && (
        <p className="muted">These two drives have no metric in common yet.</p>
      )}
      {pair.data &&
        byPlan(pair.data.metrics).map(([plan, metrics]) => (
          <section className="section" key={plan} aria-label={plan}>
            <div className="section__header">
              <h2>{plan}</h2>
            </div>
            {planWarnings(metrics).length > 0 && (
              <ul className="compare-warnings" aria-label={`Warnings for ${plan}`}>
                {planWarnings(metrics).map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            )}
            <div className="table-wrap">
              <table className="table" data-testid="pair-table">
                <thead>
                  <tr>
                    <th>Metric</th>
                    <th className="num">A: {driveName(pair.data!.a)}</th>
                    <th className="num">B: {driveName(pair.data!.b)}</th>
                    <th className="num">B vs A</th>
                  </tr>
                </thead>
                <tbody>
                  {metrics.map((m) => {
                    const v = verdict(m);
                    const differs = differingText(m);
                    return (
                      <tr key={m.metric} data-metric={m.metric}>
                        <td>
                          {m.names.title}
                          <span className="cell-sub mono">{m.metric}</span>
                          {differs && (
                            <span className="pair-warning" data-testid="pair-differs">
                              ⚠ measured differently: {differs}
                            </span>
                          )}
                        </td>
                        <td className="num">
                          {formatMetric(m.a)} {m.unit}
                        </td>
                        <td className="num">
                          {formatMetric(m.b)} {m.unit}
                        </td>
                        <td
                          className={`num pair-diff--${v}`}
                          title={
                            v === "info"
                              ? "not a performance figure"
                              : v === "apart"
                                ? `not ranked: ${m.set_apart}`
                                : `B is ${v}`
                          }
                        >
                          {formatDiff(m.diff_pct)}
                          {v === "apart" ? (
                            <span className="cell-sub">not ranked</span>
                          ) : (
                            v !== "info" && <span className="visually-hidden"> ({v})</span>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
        ))}
    </div>
  );
}
