import { useSearchParams } from "react-router";
import { useDrives } from "../../api/drives/queries";
import { ErrorBox } from "../../components/error-box/error-box";
import { simulatedMark } from "../../lib/export-utils";
import { formatMetric } from "../../lib/format-utils";
import { driveName } from "../../lib/series-utils";
import { useArticle, usePair } from "../../api/results/queries";
import { ArticleTop } from "../../components/article-view/article-view";
import { scaleUnit } from "../../components/article-view/article-utils";
import type { PairMetric } from "../../api/results/types";
import {
  byPlan,
  byTest,
  formatDiff,
  groupDiffering,
  planWarnings,
  verdict,
  verdictTitle,
} from "./side-by-side-utils";
import "../compare/compare-page.css";
import "../shared/shared-page.css";
import "./side-by-side-page.css";

const idOf = (v: string | null) => (v && /^\d+$/.test(v) ? Number(v) : null);

/** One test's rows: each metric both drives have, units scaled per row, B's difference from
 * A (performance figures coloured better or worse), and what A and B were measured under
 * where it differs, said once for the test. */
function PairGroup({ title, metrics, a, b }: { title: string; metrics: PairMetric[]; a: string; b: string }) {
  const differs = groupDiffering(metrics);
  return (
    <div className="pair-group">
      <h4>{title}</h4>
      {differs.length > 0 && (
        <p className="pair-warning" data-testid="pair-differs">
          ⚠ measured differently: {differs.join("; ")}
        </p>
      )}
      <div className="table-wrap">
        <table className="table" data-testid="pair-table">
          <thead>
            <tr>
              <th>Measure</th>
              <th className="num">A: {a}</th>
              <th className="num">B: {b}</th>
              <th className="num">B vs A</th>
            </tr>
          </thead>
          <tbody>
            {metrics.map((m) => {
              const v = verdict(m);
              const [unit, div] = scaleUnit([m.a, m.b], m.unit);
              return (
                <tr key={m.metric} data-metric={m.metric}>
                  <td title={m.metric}>{m.names.measure}</td>
                  <td className="num nowrap">
                    {formatMetric(m.a / div)} {unit}
                  </td>
                  <td className="num nowrap">
                    {formatMetric(m.b / div)} {unit}
                  </td>
                  <td
                    className={`num pair-diff--${v}`}
                    title={verdictTitle(m)}
                    data-verdict={v}
                  >
                    {formatDiff(m.diff_pct)}
                    {v === "apart" ? (
                      <span className="cell-sub">not ranked</span>
                    ) : v === "same" ? (
                      <span className="cell-sub">within noise</span>
                    ) : v === "unknown" ? (
                      <span className="cell-sub">1 run</span>
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
    </div>
  );
}

/** Two drives: their headline figures and findings (B's difference under A), then every
 * metric both have, collapsed, by plan and test; performance figures coloured better or
 * worse, and the conditions they were measured under where they differ, once per test. */
export function SideBySidePage() {
  const [params, setParams] = useSearchParams();
  const a = idOf(params.get("a"));
  const b = idOf(params.get("b"));
  const drives = useDrives();
  const pair = usePair(a, b);
  // The headline figures and findings of the two, B's difference under A.
  const both = a !== null && b !== null && a !== b ? [a, b] : [];
  const article = useArticle(both, both.length ? b : null);
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
      {article.data && <ArticleTop article={article.data} />}
      {pair.data && pair.data.metrics.length > 0 && (
        <details className="section pair-all" data-testid="pair-all">
          <summary className="section__header">
            <h2>
              Every figure both have ({pair.data.metrics.length}, by plan and test)
            </h2>
          </summary>
          {byPlan(pair.data.metrics).map(([plan, metrics]) => (
            <section className="pair-plan" key={plan} aria-label={plan}>
              <h3>{plan}</h3>
              {planWarnings(metrics).length > 0 && (
                <ul className="compare-warnings" aria-label={`Warnings for ${plan}`}>
                  {planWarnings(metrics).map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              )}
              {byTest(metrics).map(([group, rows]) => (
                <PairGroup
                  key={group}
                  title={group.slice(plan.length + 3)}
                  metrics={rows}
                  a={driveName(pair.data!.a)}
                  b={driveName(pair.data!.b)}
                />
              ))}
            </section>
          ))}
        </details>
      )}
    </div>
  );
}
