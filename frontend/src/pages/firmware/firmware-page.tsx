import { useState } from "react";
import { Link, useParams } from "react-router";
import { useFirmwareHistory } from "../../api/firmware/queries";
import type { FirmwareChange, FirmwareHistory, FirmwareMetric } from "../../api/types";
import { SimulatedBadge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { TimeText } from "../../components/time-text/time-text";
import { VerdictMark } from "../../components/verdict-badge/verdict-badge";
import {
  changeRunsText,
  defaultPair,
  driveChoices,
  firmwareArticlePath,
  formatMean,
  groupMetrics,
  parseModelId,
  significantChanges,
  type FirmwareDrive,
} from "./firmware-utils";
import "./firmware-page.css";

export function FirmwarePage() {
  const { id } = useParams();
  const modelId = parseModelId(id);
  if (modelId === null) {
    return (
      <div className="page">
        <div className="page-header">
          <h1>Firmware history</h1>
        </div>
        <ErrorBox error={`"${id ?? ""}" is not a model id: see the Catalog page for the models.`} title="No such model" />
      </div>
    );
  }
  return <FirmwareLoader modelId={modelId} />;
}

function FirmwareLoader({ modelId }: { modelId: number }) {
  const query = useFirmwareHistory(modelId);
  if (!query.data) {
    return (
      <div className="page" aria-busy={query.isPending}>
        <div className="page-header">
          <h1>Firmware history</h1>
          <Link to="/catalog">Catalog</Link>
        </div>
        {query.isError ? (
          <ErrorBox error={query.error} title="Could not load the firmware history" />
        ) : (
          <div className="section firmware-page__placeholder">
            <p className="muted">Loading firmware history…</p>
          </div>
        )}
      </div>
    );
  }
  return <LoadedHistory history={query.data} />;
}

function ChangeMark({ change }: { change: FirmwareChange }) {
  return (
    <VerdictMark
      verdict={change.verdict}
      diff={change.diff_pct}
      low={change.low_pct}
      high={change.high_pct}
      q={change.q}
      runs={changeRunsText(change)}
    />
  );
}

/** The page for a loaded history (exported for its render test). */
export function LoadedHistory({ history }: { history: FirmwareHistory }) {
  const versions = history.firmwares;
  const significant = significantChanges(history.metrics);
  const groups = groupMetrics(history.metrics);
  return (
    <div className="page firmware-page">
      <div className="page-header">
        <div className="page-header__title">
          <h1>Firmware history: {history.label}</h1>
          {history.simulated && <SimulatedBadge />}
        </div>
        <Link to="/catalog">Catalog</Link>
      </div>

      <section className="section" aria-labelledby="fw-versions">
        <div className="section__header">
          <h2 id="fw-versions">Versions</h2>
          <span className="muted">in the order first run; the firmware each drive reported at the run's start</span>
        </div>
        {versions.length === 0 ? (
          <div className="section__body">
            <p className="muted">No run of a drive of this model has finished yet.</p>
          </div>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="fw-versions">
              <thead>
                <tr>
                  <th scope="col">Firmware</th>
                  <th scope="col">First run</th>
                  <th scope="col" className="num">
                    Runs
                  </th>
                </tr>
              </thead>
              <tbody>
                {versions.map((v) => (
                  <tr key={v.firmware}>
                    <td className="mono">{v.firmware}</td>
                    <td>
                      <TimeText iso={v.first_run_at} withDate />
                    </td>
                    <td className="num">{v.runs}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <ArticleChooser history={history} />

      <section className="section" aria-labelledby="fw-summary">
        <div className="section__header">
          <h2 id="fw-summary">Significant changes</h2>
        </div>
        <div className="section__body" data-testid="fw-summary">
          {history.metrics.length === 0 ? (
            <p className="muted">
              {versions.length < 2
                ? `${versions.length === 1 ? `Only firmware ${versions[0]?.firmware ?? ""} has been measured` : "Nothing has been measured"}: no change to judge yet.`
                : "No figure has been measured alike on two firmware versions: no change to judge yet."}
            </p>
          ) : significant.length === 0 ? (
            <p>No change between versions is shown by the runs to be real: every difference is within noise or has too few runs.</p>
          ) : (
            <ul className="firmware-page__summary">
              {significant.map(({ metric, change }) => (
                <li key={`${metric.metric} ${change.from_firmware} ${change.to_firmware}`}>
                  <ChangeMark change={change} />{" "}
                  <span>
                    {metric.names.plan} · {metric.names.title}
                  </span>{" "}
                  <span className="muted mono">
                    {change.from_firmware} → {change.to_firmware}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>

      {groups.map((g) => (
        <section className="section" key={`${g.plan} ${g.test}`} aria-label={`${g.plan}: ${g.test}`}>
          <div className="section__header">
            <h2>
              {g.plan} <span className="muted">·</span> {g.test}
            </h2>
          </div>
          <div className="table-wrap">
            <table className="table firmware-page__metrics">
              <thead>
                <tr>
                  <th scope="col">Figure</th>
                  {versions.map((v) => (
                    <th scope="col" key={v.firmware} className="num mono">
                      {v.firmware}
                    </th>
                  ))}
                  <th scope="col">Changes</th>
                </tr>
              </thead>
              <tbody>
                {g.metrics.map((m) => (
                  <MetricRow key={m.metric} metric={m} versions={versions.map((v) => v.firmware)} />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}

      <p className="muted firmware-page__method" data-testid="fw-method">
        {history.method}
      </p>
    </div>
  );
}

function MetricRow({ metric, versions }: { metric: FirmwareMetric; versions: string[] }) {
  const byFw = new Map(metric.by_firmware.map((f) => [f.firmware, f.runs]));
  return (
    <tr data-metric={metric.metric}>
      <th scope="row" title={metric.metric}>
        {metric.names.measure}
        <span className="muted"> {metric.lower_is_better ? "(lower is better)" : ""}</span>
      </th>
      {versions.map((fw) => {
        const runs = byFw.get(fw);
        return (
          <td key={fw} className="num">
            {runs ? (
              <>
                {formatMean(runs, metric.unit)}
                <span className="muted firmware-page__runs">
                  {" "}
                  {runs.count} run{runs.count === 1 ? "" : "s"}
                </span>
              </>
            ) : (
              <span className="muted">—</span>
            )}
          </td>
        );
      })}
      <td>
        <ul className="firmware-page__changes">
          {metric.changes.map((c) => (
            <li key={`${c.from_firmware} ${c.to_firmware}`}>
              <span className="muted mono">
                {c.from_firmware} → {c.to_firmware}
              </span>{" "}
              <ChangeMark change={c} />
            </li>
          ))}
        </ul>
      </td>
    </tr>
  );
}

/** Two firmware versions of one drive opened as an article, as if they were two drives. */
function ArticleChooser({ history }: { history: FirmwareHistory }) {
  const drives = driveChoices(history);
  const [driveId, setDriveId] = useState<number | null>(null);
  const drive = drives.find((d) => d.drive_id === driveId) ?? drives[0];
  return (
    <section className="section" aria-labelledby="fw-article">
      <div className="section__header">
        <h2 id="fw-article">Two versions as an article</h2>
        <span className="muted">one drive's runs on each version, compared as two drives are</span>
      </div>
      <div className="section__body" data-testid="fw-article">
        {drive ? (
          <VersionPair
            key={drive.drive_id}
            modelId={history.model_id}
            drives={drives}
            drive={drive}
            onDrive={setDriveId}
          />
        ) : (
          <p className="muted">
            No drive of this model has finished runs on two firmware versions: run a test after
            the update to compare the versions.
          </p>
        )}
      </div>
    </section>
  );
}

function VersionPair({
  modelId,
  drives,
  drive,
  onDrive,
}: {
  modelId: number;
  drives: FirmwareDrive[];
  drive: FirmwareDrive;
  onDrive: (id: number) => void;
}) {
  const [first, last] = defaultPair(drive);
  const [base, setBase] = useState(first);
  const [reviewed, setReviewed] = useState(last);
  const same = base === reviewed;
  return (
    <div className="firmware-page__pair">
      {drives.length > 1 && (
        <label>
          Drive{" "}
          <select
            name="fw-article-drive"
            value={drive.drive_id}
            onChange={(e) => onDrive(Number(e.target.value))}
          >
            {drives.map((d) => (
              <option key={d.drive_id} value={d.drive_id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <VersionSelect label="Firmware" name="fw-article-base" versions={drive.firmwares} value={base} onChange={setBase} />
      <VersionSelect
        label="against firmware under review"
        name="fw-article-reviewed"
        versions={drive.firmwares}
        value={reviewed}
        onChange={setReviewed}
      />
      {same ? (
        <span className="form-field__error" role="alert">
          Choose two different versions.
        </span>
      ) : (
        <Link className="button" to={firmwareArticlePath(modelId, drive.drive_id, base, reviewed)}>
          Open the article: {reviewed} vs {base}
        </Link>
      )}
    </div>
  );
}

function VersionSelect(props: {
  label: string;
  name: string;
  versions: string[];
  value: string;
  onChange: (fw: string) => void;
}) {
  return (
    <label>
      {props.label}{" "}
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.versions.map((fw) => (
          <option key={fw} value={fw}>
            {fw}
          </option>
        ))}
      </select>
    </label>
  );
}
