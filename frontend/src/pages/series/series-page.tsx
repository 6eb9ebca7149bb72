import { Link, useParams } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { usePlans } from "../../api/plans/queries";
import { useSeries, useStopSeries } from "../../api/series/queries";
import type { Series } from "../../api/types";
import { Badge, SimulatedBadge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { StatusBadge } from "../../components/status-badge/status-badge";
import { TimeText } from "../../components/time-text/time-text";
import { formatMetric } from "../../lib/format-utils";
import {
  figureRuns,
  formatRsd,
  modeText,
  overThreshold,
  parseSeriesId,
  seriesTone,
  statusText,
} from "./series-utils";
import "./series-page.css";

export function SeriesPage() {
  const { id } = useParams();
  const seriesId = parseSeriesId(id);
  if (seriesId === null) {
    return (
      <div className="page">
        <div className="page-header">
          <h1>Series</h1>
        </div>
        <ErrorBox error={`"${id ?? ""}" is not a series id: series are numbered 1, 2, 3…`} title="No such series" />
      </div>
    );
  }
  return <SeriesLoader seriesId={seriesId} />;
}

function SeriesLoader({ seriesId }: { seriesId: number }) {
  const query = useSeries(seriesId);
  if (!query.data) {
    return (
      <div className="page" aria-busy={query.isPending}>
        <div className="page-header">
          <h1>Series #{seriesId}</h1>
        </div>
        {query.isError ? (
          <ErrorBox error={query.error} title="Could not load the series" />
        ) : (
          <div className="section series-page__placeholder">
            <p className="muted">Loading series…</p>
          </div>
        )}
      </div>
    );
  }
  return <LoadedSeries series={query.data} refetchError={query.isError ? query.error : null} />;
}

function LoadedSeries({ series, refetchError }: { series: Series; refetchError: unknown }) {
  const me = useMe();
  const mayStop = canWrite(me.data);
  const stop = useStopSeries(series.id);
  const plans = usePlans();
  const plan = plans.data?.find((p) => p.key === series.plan);
  const first = series.runs[0];
  const running = series.status === "running";
  const why = statusText(series);

  const onStop = () => {
    if (window.confirm(`Stop series #${series.id}? Its waiting or running repeat is cancelled; finished runs are kept.`)) {
      stop.mutate();
    }
  };

  return (
    <div className="page series-page">
      <div className="page-header">
        <div className="page-header__title">
          <h1>Series #{series.id}</h1>
          <span data-testid="series-status">
            <Badge tone={seriesTone(series.status)}>{series.status}</Badge>
          </span>
          {first?.simulated && <SimulatedBadge />}
        </div>
        <button
          type="button"
          className="button button--danger"
          onClick={onStop}
          disabled={!mayStop || !running || stop.isPending}
          title={
            !mayStop
              ? "Stopping needs a reviewer: you are signed in as a viewer"
              : running
                ? "Stop the series: cancel its waiting or running repeat"
                : `A series that is ${series.status} cannot be stopped`
          }
        >
          {stop.isPending ? "Stopping…" : "Stop series"}
        </button>
      </div>

      {stop.isError && <ErrorBox error={stop.error} title="Could not stop the series" />}
      {refetchError !== null && <ErrorBox error={refetchError} title="Could not refresh the series" />}

      <section className="section" aria-label="Summary">
        <div className="section__body">
          <dl className="facts">
            <div>
              <dt>Plan</dt>
              <dd>
                {plan ? `${plan.title} ` : ""}
                <span className="mono">{series.plan}</span>
              </dd>
            </div>
            <div>
              <dt>Drive</dt>
              <dd>{first ? first.drive_label : `#${series.drive_id}`}</dd>
            </div>
            <div>
              <dt>Runs</dt>
              <dd>{modeText(series)}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>
                <TimeText iso={series.created_at} withDate />
              </dd>
            </div>
            <div>
              <dt>Ended</dt>
              <dd>
                <TimeText iso={series.finished_at} withDate />
              </dd>
            </div>
          </dl>
          {why && (
            <p className="series-page__reason" data-testid="series-reason">
              <strong>{series.status}</strong>: {why}
            </p>
          )}
        </div>
      </section>

      <section className="section" aria-labelledby="series-runs">
        <div className="section__header">
          <h2 id="series-runs">Runs</h2>
          <span className="muted">{series.runs.length} queued so far</span>
        </div>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Repeat</th>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Finished</th>
              </tr>
            </thead>
            <tbody>
              {series.runs.map((r) => (
                <tr key={r.id}>
                  <td className="num">{r.series_index ?? "—"}</td>
                  <td>
                    <Link to={`/runs/${r.id}`} className="mono">
                      #{r.id}
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={r.status} />
                    {r.error && <span className="muted series-page__error"> {r.error}</span>}
                  </td>
                  <td>
                    <TimeText iso={r.started_at} />
                  </td>
                  <td>
                    <TimeText iso={r.finished_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <FiguresTable series={series} />
    </div>
  );
}

function FiguresTable({ series }: { series: Series }) {
  const runs = figureRuns(series.runs);
  const over = series.figures.filter((f) => overThreshold(f, series.rsd_pct)).length;
  return (
    <section className="section" aria-labelledby="series-figures">
      <div className="section__header">
        <h2 id="series-figures">Judged figures</h2>
        <span className="muted">
          fio's MB/s and IOPS figures of the finished runs, least stable first; RSD at or over {series.rsd_pct}%
          marked{over > 0 ? ` (${over})` : ""}
        </span>
      </div>
      {series.figures.length === 0 ? (
        <div className="section__body">
          <p className="muted">
            {runs.length === 0
              ? "No run has finished yet: the figures appear with the first."
              : "The finished runs have no MB/s or IOPS figure in common."}
          </p>
        </div>
      ) : (
        <div className="table-wrap">
          <table className="table series-page__figures" data-testid="series-figures">
            <thead>
              <tr>
                <th scope="col">Figure</th>
                <th scope="col">Unit</th>
                {runs.map((r) => (
                  <th scope="col" key={r.id} className="num">
                    <Link to={`/runs/${r.id}`}>#{r.id}</Link>
                    <span className="muted"> (repeat {r.series_index ?? "?"})</span>
                  </th>
                ))}
                <th scope="col" className="num">
                  RSD
                </th>
              </tr>
            </thead>
            <tbody>
              {series.figures.map((f) => {
                const marked = overThreshold(f, series.rsd_pct);
                return (
                  <tr key={f.metric} data-metric={f.metric} className={marked ? "series-page__over" : undefined}>
                    <th scope="row" title={f.metric}>
                      {f.name}
                    </th>
                    <td>{f.unit}</td>
                    {f.values.map((v, i) => (
                      <td key={runs[i]?.id ?? i} className="num" data-value={v}>
                        {formatMetric(v)}
                      </td>
                    ))}
                    <td className="num" data-rsd={f.rsd_pct ?? ""}>
                      {marked ? (
                        <Badge tone="warn" title={`At or over the series' threshold of ${series.rsd_pct}%`}>
                          {formatRsd(f.rsd_pct)}
                        </Badge>
                      ) : (
                        formatRsd(f.rsd_pct)
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
