import { useMemo } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { useRunEvents, type StreamState } from "../../api/runs/events";
import { hasPtsReport, usePtsReport } from "../../api/pts/queries";
import { useCancelRun, useRun, useRunSamples } from "../../api/runs/queries";
import { stepSamples } from "../../api/runs/samples-utils";
import type { RunDetail, Step } from "../../api/types";
import { Badge, EmbargoBadge, SimulatedBadge } from "../../components/badge/badge";
import { CdmTable } from "../../components/cdm-table/cdm-table";
import { CDM_PLAN } from "../../components/cdm-table/cdm-utils";
import { AsSsdTable } from "../../components/asssd-table/asssd-table";
import { ASSSD_PLAN } from "../../components/asssd-table/asssd-utils";
import { SlcRecovery } from "../../components/slc-recovery/slc-recovery";
import { MixedRun } from "../../components/mixed-curves/mixed-curves";
import { MIXED_PLAN } from "../../components/mixed-curves/mixed-utils";
import { SLC_PLAN } from "../../components/slc-recovery/slc-utils";
import { BurstsRun } from "../../components/burst-chart/bursts-chart";
import { BURSTS_PLAN } from "../../components/burst-chart/bursts-utils";
import { FileCopySection } from "../../components/file-copy/file-copy-chart";
import { FILE_COPY_PLAN } from "../../components/file-copy/file-copy-utils";
import { FullDriveChart } from "../../components/full-drive/full-drive-chart";
import { FULL_DRIVE_PLAN } from "../../components/full-drive/full-drive-utils";
import { EnvInfo } from "../../components/env-info/env-info";
import { ErrorBox } from "../../components/error-box/error-box";
import { JobFiles } from "../../components/job-files/job-files";
import { ConvergenceChart, XYChart } from "../../components/pts-charts/pts-charts";
import type { PtsSection } from "../../api/pts/types";
import { diCsv, diLines } from "../pts-report/pts-report-utils";
import { ProgressBar } from "../../components/progress-bar/progress-bar";
import { RunQosSection } from "../../components/qos-charts/run-qos";
import { ResultsTable } from "../../components/results-table/results-table";
import { RunChart } from "../../components/run-chart/run-chart";
import { StatusBadge, statusTone } from "../../components/status-badge/status-badge";
import { StepChart } from "../../components/step-chart/step-chart";
import { stepChartSpec } from "../../components/step-chart/step-chart-utils";
import { StepsTable } from "../../components/steps-table/steps-table";
import { ThermalRunSection } from "../../components/thermal-chart/thermal-chart";
import { THERMAL_PLAN } from "../../components/thermal-chart/thermal-utils";
import { TimeText } from "../../components/time-text/time-text";
import { formatDuration } from "../../lib/format-utils";
import {
  canCancel,
  currentStepId,
  etaText,
  isActiveStatus,
  isFinalStatus,
  parseRunId,
  runDurationSeconds,
  totalEstimateSeconds,
  waitingText,
} from "../../lib/run-utils";
import { useNow } from "../../lib/use-now";
import "./run-page.css";
import { noSamplesText } from "./run-utils";

export function RunPage() {
  const { id } = useParams();
  const runId = parseRunId(id);
  if (runId === null) {
    return (
      <div className="page">
        <ErrorBox error={`"${id ?? ""}" is not a run id.`} title="No such run" />
      </div>
    );
  }
  // A new id is a new page: the live samples of the previous run must not leak into it.
  return <RunView key={runId} runId={runId} />;
}

const STREAM_BADGES: Partial<
  Record<StreamState, { tone: "info" | "warn" | "danger"; text: string; title: string }>
> = {
  connecting: { tone: "info", text: "connecting…", title: "Opening the live stream" },
  live: { tone: "info", text: "live", title: "Receiving live updates over SSE" },
  reconnecting: {
    tone: "warn",
    text: "reconnecting…",
    title: "The live stream dropped; polling every 2 s until it is back",
  },
  failed: {
    tone: "danger",
    text: "stream lost",
    title: "The live stream could not be reopened; polling every 2 s",
  },
};

function RunView({ runId }: { runId: number }) {
  const runQuery = useRun(runId);
  const run = runQuery.data;

  if (runQuery.isError && !run) {
    return (
      <div className="page">
        <div className="page-header">
          <h1>Run #{runId}</h1>
        </div>
        <ErrorBox error={runQuery.error} title="Could not load the run" />
      </div>
    );
  }
  if (!run) {
    return (
      <div className="page" aria-busy="true">
        <div className="page-header">
          <h1>Run #{runId}</h1>
        </div>
        <div className="section run-page__placeholder">
          <p className="muted">Loading run…</p>
        </div>
      </div>
    );
  }
  return <LoadedRun run={run} refetchError={runQuery.isError ? runQuery.error : null} />;
}

function sampleEmptyText(step: Step | undefined): string {
  if (!step) return "Pick a step to see its samples.";
  switch (step.status) {
    case "pending":
      return "This step has not started yet.";
    case "skipped":
      return "This step was skipped.";
    case "running":
      return step.kind === "fio" || step.kind === "fill"
        ? "Waiting for the first samples…"
        : noSamplesText(step.kind);
    default:
      return step.kind === "fio" || step.kind === "fill"
        ? "No samples were recorded for this step."
        : noSamplesText(step.kind);
  }
}

function resultsEmptyText(step: Step | undefined): string {
  if (!step) return "Pick a step to see its results.";
  if (step.status === "pending" || step.status === "running") {
    return "Results appear when the step finishes.";
  }
  return "No results for this step.";
}

function LoadedRun({ run, refetchError }: { run: RunDetail; refetchError: unknown }) {
  const active = isActiveStatus(run.status);
  const events = useRunEvents(run.id, active);
  const cancel = useCancelRun(run.id);
  const me = useMe();
  const mayCancel = canWrite(me.data);
  const now = useNow(active);

  const [searchParams, setSearchParams] = useSearchParams();
  // ?step=ID pins a step; without it (or with a stale id) the page follows the current step.
  const stepParam = searchParams.get("step");
  const pinned = run.steps.find((s) => String(s.id) === stepParam) ?? null;
  const selectedId = pinned?.id ?? currentStepId(run.steps);
  const selected = run.steps.find((s) => s.id === selectedId);

  const samplesQuery = useRunSamples(run.id, selectedId);
  const samples = useMemo(
    () => (selectedId === null ? [] : stepSamples(selectedId, samplesQuery.data, events.live)),
    [selectedId, samplesQuery.data, events.live],
  );

  const selectStep = (stepId: number) =>
    setSearchParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set("step", String(stepId));
        return next;
      },
      { replace: true },
    );
  const followCurrent = () =>
    setSearchParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete("step");
        return next;
      },
      { replace: true },
    );

  const onCancel = () => {
    if (window.confirm(`Cancel run #${run.id} (${run.plan} on ${run.drive_label})?`)) {
      cancel.mutate();
    }
  };

  const streamBadge = active ? STREAM_BADGES[events.state] : undefined;
  // The api took the cancel of a running run; the worker ends it within seconds.
  const stopping = cancel.isSuccess && run.status === "running";
  const stepNumber = selected ? selected.idx + 1 : null;

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-header__title">
          <h1>Run #{run.id}</h1>
          <StatusBadge status={run.status} />
          {run.embargoed && <EmbargoBadge />}
          {run.series_id != null && (
            <Link to={`/series/${run.series_id}`} className="run-page__series">
              repeat {run.series_index ?? "?"} of series #{run.series_id}
            </Link>
          )}
          {run.status === "queued" && run.waiting_position != null && (
            <span className="muted">{waitingText(run.waiting_position)}</span>
          )}
          {streamBadge && (
            <Badge tone={streamBadge.tone} title={streamBadge.title}>
              {streamBadge.text}
            </Badge>
          )}
        </div>
        <button
          type="button"
          className="button button--danger"
          onClick={onCancel}
          disabled={!mayCancel || !canCancel(run) || cancel.isPending || stopping}
          title={
            !mayCancel
              ? "Cancelling needs a reviewer: you are signed in as a viewer"
              : stopping
                ? "Cancelled: the worker stops fio at its next report and ends the run"
                : canCancel(run)
                  ? "Stop this run"
                  : `A ${run.status} run cannot be cancelled`
          }
        >
          {cancel.isPending ? "Cancelling…" : stopping ? "Stopping…" : "Cancel run"}
        </button>
      </div>

      {cancel.isError && <ErrorBox error={cancel.error} title="Could not cancel the run" />}
      {refetchError !== null && <ErrorBox error={refetchError} title="Could not refresh the run" />}

      <section className="section" aria-label="Summary">
        <div className="section__body run-page__summary">
          <dl className="facts">
            <div>
              <dt>Plan</dt>
              <dd className="mono">{run.plan}</dd>
            </div>
            <div className="run-page__drive">
              <dt>Drive</dt>
              <dd>
                {run.drive_label} <span className="muted">(#{run.drive_id})</span>
                {run.simulated && (
                  <>
                    {" "}
                    <SimulatedBadge emulated={run.emulated} />
                  </>
                )}
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <TimeText iso={run.created_at} />
              </dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>
                <TimeText iso={run.started_at} />
              </dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>
                <TimeText iso={run.finished_at} />
              </dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd className="num run-page__left">{formatDuration(runDurationSeconds(run, now))}</dd>
            </div>
            <div className="run-page__eta">
              <dt>{active ? "ETA" : "Estimated"}</dt>
              <dd className="num run-page__left">
                {etaText(run, now) ?? formatDuration(totalEstimateSeconds(run.steps))}
              </dd>
            </div>
          </dl>
          <ProgressBar
            value={run.status === "done" ? 1 : run.progress}
            tone={statusTone(run.status)}
            label={`Run ${run.id} progress`}
            size="large"
          />
        </div>
      </section>

      {run.error && (
        <ErrorBox error={run.error} title={run.status === "lost" ? "Run lost" : "Run failed"} />
      )}

      <section className="section" aria-labelledby="steps-heading">
        <div className="section__header">
          <h2 id="steps-heading">Steps</h2>
          <span className="muted">{run.steps.length} in order</span>
        </div>
        <div className="section__body section__body--flush">
          <StepsTable steps={run.steps} selectedId={selectedId} onSelect={selectStep} />
        </div>
      </section>

      {run.steps.length > 0 && (
        <section className="section" aria-labelledby="step-heading">
          <div className="section__header">
            <h2 id="step-heading" className="run-page__step-title">
              {selected ? (
                <>
                  <span className="muted">
                    Step {stepNumber} of {run.steps.length}
                  </span>
                  <span>{selected.name}</span>
                  <StatusBadge status={selected.status} />
                </>
              ) : (
                "Step"
              )}
            </h2>
            <span className="run-page__follow">
              {pinned ? (
                <button type="button" className="button" onClick={followCurrent}>
                  Follow current step
                </button>
              ) : (
                <span className="muted">{active ? "following the current step" : ""}</span>
              )}
            </span>
          </div>
          <div className="section__body run-page__step">
            {selected?.error && <ErrorBox error={selected.error} title="Step failed" />}
            <div className="run-page__step-grid">
              <RunChart
                exportAs={{
                  fileName: ["run", String(run.id), selected?.name ?? "step"],
                  title: selected?.label ?? "Step",
                  conditions: `${run.plan} · ${selected?.name ?? ""}`,
                  provenance: provenance(run),
                }}
                samples={samples}
                ended={selected !== undefined && !["pending", "running"].includes(selected.status)}
                loading={samplesQuery.isPending && selectedId !== null && samples.length === 0}
                emptyText={sampleEmptyText(selected)}
              />
              <div className="run-page__results">
                <h3 className="run-page__results-title">Results</h3>
                {samplesQuery.isError && (
                  <ErrorBox error={samplesQuery.error} title="Could not load the samples" />
                )}
                <ResultsTable
                  results={selected?.results ?? []}
                  emptyText={resultsEmptyText(selected)}
                />
              </div>
            </div>
          </div>
        </section>
      )}

      {run.plan === CDM_PLAN && (
        <CdmTable
          steps={run.steps}
          fileParts={["run", String(run.id)]}
          conditions={`${run.plan} · ${run.drive_label}`}
          provenance={provenance(run)}
          simulated={run.simulated ? `Simulated drive: ${run.drive_label}` : undefined}
        />
      )}

      {run.plan === ASSSD_PLAN && (
        <AsSsdTable
          steps={run.steps}
          fileParts={["run", String(run.id)]}
          conditions={`${run.plan} · ${run.drive_label}`}
          provenance={provenance(run)}
          simulated={run.simulated ? `Simulated drive: ${run.drive_label}` : undefined}
        />
      )}

      {run.plan === THERMAL_PLAN && (
        <ThermalRunSection
          run={run}
          conditions={`${run.plan} · ${run.drive_label}`}
          provenance={provenance(run)}
        />
      )}
      {run.plan === SLC_PLAN && (
        <SlcRecovery
          runId={run.id}
          steps={run.steps}
          conditions={`${run.plan} · ${run.drive_label}`}
          provenance={provenance(run)}
        />
      )}
      {run.plan === BURSTS_PLAN && (
        <BurstsRun
          runId={run.id}
          steps={run.steps}
          conditions={`${run.plan} · ${run.drive_label}`}
          provenance={provenance(run)}
          simulated={run.simulated ? `Simulated drive: ${run.drive_label}` : undefined}
        />
      )}
      {run.plan === MIXED_PLAN && (
        <MixedRun run={run} conditions={`${run.plan} · ${run.drive_label}`} provenance={provenance(run)} />
      )}
      {run.plan === FILE_COPY_PLAN && (
        <FileCopySection run={run} conditions={`${run.plan} · ${run.drive_label}`} provenance={provenance(run)} />
      )}
      {run.plan === FULL_DRIVE_PLAN && (
        <FullDriveChart
          steps={run.steps}
          fileParts={["run", String(run.id)]}
          conditions={`${run.plan} · ${run.drive_label}`}
          provenance={provenance(run)}
          simulated={run.simulated ? `Simulated drive: ${run.drive_label}` : undefined}
        />
      )}

      {hasPtsReport(run.plan) && <PtsLive run={run} selectedId={selectedId} />}

      {isFinalStatus(run.status) && (
        <RunQosSection
          runId={run.id}
          plan={run.plan}
          selectedId={selectedId}
          provenance={provenance(run)}
          simulated={run.simulated ? `Simulated drive: ${run.drive_label}` : undefined}
        />
      )}

      {isFinalStatus(run.status) && <AllCharts run={run} />}

      <JobFiles runId={run.id} />

      <section className="section" aria-labelledby="env-heading">
        <div className="section__header">
          <h2 id="env-heading">Drive and host</h2>
          <span className="muted">as the bench recorded them for this run</span>
        </div>
        <div className="section__body">
          <EnvInfo environment={run.environment} />
        </div>
      </section>

      <section className="section" aria-labelledby="params-heading">
        <div className="section__header">
          <h2 id="params-heading">Parameters</h2>
          <Link to={`/queue?drive=${run.drive_id}&plan=${encodeURIComponent(run.plan)}&from=${run.id}`}>
            Queue this plan again
          </Link>
        </div>
        <div className="section__body">
          <ParamsList params={run.params} />
        </div>
      </section>
    </div>
  );
}

/** "Samsung 870 EVO 1 TB · fw SVT02B6Q · fio-3.33 · 2026-11-21", for exported charts. */
function provenance(run: RunDetail): string {
  const env = run.environment ?? {};
  const drive = (env.drive ?? {}) as Record<string, unknown>;
  const host = (env.host ?? {}) as Record<string, unknown>;
  return [
    run.drive_label,
    typeof drive.firmware === "string" ? `fw ${drive.firmware}` : null,
    typeof host.fio_version === "string" ? host.fio_version : null,
    (run.finished_at ?? run.created_at).slice(0, 10),
    run.simulated ? "simulated drive" : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * A SNIA PTS run: the steady-state convergence of the rounds step being run (or picked),
 * growing round by round over the page's SSE stream, and the way to the full report.
 */
function PtsLive({ run, selectedId }: { run: RunDetail; selectedId: number | null }) {
  const report = usePtsReport(run.id, run.status !== "queued");
  const sections = report.data?.sections ?? [];
  const section =
    sections.find((s) => s.step_id === selectedId) ??
    sections.find((s) => s.status === "running") ??
    sections[sections.length - 1];
  return (
    <section className="section" aria-labelledby="pts-heading">
      <div className="section__header">
        <h2 id="pts-heading">SNIA PTS</h2>
        <Link to={`/runs/${run.id}/report`}>Open the report</Link>
      </div>
      <div className="section__body">
        {section ? (
          <ConvergenceChart
            section={section}
            provenance={provenance(run)}
            conditions={`${run.plan} · ${section.label}`}
            fileBase={["run", String(run.id)]}
          />
        ) : (
          <p className="muted">The convergence plot starts with the first round.</p>
        )}
        {sections.map((s) => (s.di ? <DemandIntensityLive key={s.step_id} run={run} section={s} /> : null))}
      </div>
    </section>
  );
}

/** DIRTH, ECW: the finding in words and the demand-intensity curve (the report has the rest). */
function DemandIntensityLive({ run, section }: { run: RunDetail; section: PtsSection }) {
  const di = section.di!;
  return (
    <>
      {di.finding && <p data-testid="run-di-finding">{di.finding}.</p>}
      <XYChart
        title="Demand intensity: IOPS against total outstanding I/O"
        subtitle={`one line per thread count · ${section.stimulus ?? ""}`}
        xLabel="TOC"
        yLabel="IOPS"
        chartId="run-di-curve"
        xLog
        xTicks={[...new Set(di.points.map((p) => p.toc))].sort((a, b) => a - b)}
        xFormat={(v) => String(Math.round(v))}
        series={diLines(di).byToc}
        exportAs={{
          fileName: ["run", String(run.id), "demand-intensity"],
          title: "Demand intensity: IOPS against TOC",
          conditions: `${run.plan} · ${section.label}`,
          provenance: provenance(run),
          csv: () => diCsv(di),
        }}
      />
    </>
  );
}

/** Every chart of the plan once the run has ended: one per step that recorded samples. */
function AllCharts({ run }: { run: RunDetail }) {
  const charts = run.steps
    .slice()
    .sort((a, b) => a.idx - b.idx)
    .map((step) => ({ step, spec: stepChartSpec(step) }))
    .filter((c) => c.spec !== null && c.step.started_at !== null);
  if (charts.length === 0) return null;
  return (
    <section className="section" aria-labelledby="charts-heading">
      <div className="section__header">
        <h2 id="charts-heading">Charts</h2>
        <span className="muted">
          {charts.length} step{charts.length === 1 ? "" : "s"} with samples, downsampled on the
          server keeping every minimum and maximum
        </span>
      </div>
      <div className="section__body run-page__charts">
        {charts.map(({ step, spec }) => (
          <StepChart
            key={step.id}
            runId={run.id}
            step={step}
            spec={spec!}
            conditions={`${run.plan} · ${step.name}`}
            provenance={provenance(run)}
          />
        ))}
      </div>
    </section>
  );
}

function ParamsList({ params }: { params: Record<string, unknown> }) {
  const entries = Object.entries(params ?? {});
  if (entries.length === 0) return <p className="muted">Default parameters.</p>;
  return (
    <dl className="facts">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt className="mono">{key}</dt>
          <dd className="mono">{typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}
