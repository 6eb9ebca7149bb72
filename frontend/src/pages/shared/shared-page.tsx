import { useMemo } from "react";
import { useParams } from "react-router";
import { ApiError } from "../../api/client";
import { useSharedComparison } from "../../api/shares/queries";
import { MetricBars } from "../../components/bar-chart/bar-chart";
import { barGroups, headlineMetrics, metricTitle } from "../../components/bar-chart/bar-chart-utils";
import { ErrorBox } from "../../components/error-box/error-box";
import { formatMetric } from "../../lib/format-utils";
import { driveStyles } from "../../lib/house-style";
import { shortLabel } from "../../lib/series-utils";
import "../compare/compare-page.css";
import "./shared-page.css";

/** A published comparison, read-only, for anyone with the link: no sign-in. */
export function SharedPage() {
  const { token = "" } = useParams();
  const shared = useSharedComparison(token);
  const comparison = shared.data?.comparison;
  const driveIds = useMemo(() => {
    const ids: number[] = [];
    for (const m of comparison?.metrics ?? []) for (const r of m.rows) ids.push(r.drive_id);
    return Array.from(new Set(ids)).sort((x, y) => x - y);
  }, [comparison]);
  const styles = useMemo(
    () => driveStyles(driveIds, shared.data?.under_review ?? null),
    [driveIds, shared.data?.under_review],
  );
  const all = comparison?.metrics ?? [];
  const wanted = headlineMetrics(all.map((m) => m.metric));
  const groups = barGroups(all, wanted.length ? wanted : all.slice(0, 6).map((m) => m.metric));
  const gone = shared.error instanceof ApiError && shared.error.status === 404;
  return (
    <div className="page">
      {shared.isPending && <p className="muted">Loading the shared comparison…</p>}
      {gone && (
        <div className="shared-page__banner" role="alert">
          <h1>This link no longer works</h1>
          <p>
            The comparison was unpublished (revoked) or the link is mistyped. Ask the person who
            sent it for a new one.
          </p>
        </div>
      )}
      {shared.error && !gone && <ErrorBox error={shared.error} title="Could not load" />}
      {shared.data && (
        <>
          <div>
            <h1>{shared.data.title}</h1>
            <p className="shared-page__meta">
              Read-only comparison published {shared.data.created_at.slice(0, 10)}; the numbers
              are computed afresh from the stored fio results each time this page opens.
            </p>
          </div>
          {groups.length === 0 ? (
            <p className="muted">No results to show.</p>
          ) : (
            <div className="compare-grid">
              {groups.map((g) => (
                <div className="compare-card" key={g.key}>
                  <MetricBars
                    group={g}
                    styles={styles}
                    fileBase="shared"
                  />
                  {g.warnings.length > 0 && (
                    <ul className="compare-warnings">
                      {g.warnings.map((w) => (
                        <li key={w}>{w}</li>
                      ))}
                    </ul>
                  )}
                </div>
              ))}
            </div>
          )}
          {all.length > 0 && (
            <details className="section" aria-label="All results">
              <summary className="section__header">
                <h2>All results ({all.length} metrics)</h2>
              </summary>
              <div className="table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      <th>Metric</th>
                      <th>Best first</th>
                    </tr>
                  </thead>
                  <tbody>
                    {all.map((m) => (
                      <tr key={m.metric}>
                        <td>
                          {metricTitle(m.metric)}
                          <span className="cell-sub mono">{m.metric}</span>
                        </td>
                        <td>
                          {m.rows
                            .map((r) => `${shortLabel(r.label)} ${formatMetric(r.value)} ${m.unit}`)
                            .join(" · ")}
                          {m.warnings.map((w) => (
                            <span key={w} className="cell-sub">
                              ⚠ {w}
                            </span>
                          ))}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          )}
        </>
      )}
    </div>
  );
}
