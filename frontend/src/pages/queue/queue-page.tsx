import { useMemo, useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { useDrives } from "../../api/drives/queries";
import { usePlanEstimate, usePlans } from "../../api/plans/queries";
import { useQuery } from "@tanstack/react-query";
import { runQuery, useCreateRun } from "../../api/runs/queries";
import type { Plan, PlanEstimate } from "../../api/types";
import { DriveSelect } from "../../components/drive-select/drive-select";
import { ErrorBox, errorMessage } from "../../components/error-box/error-box";
import { FormField } from "../../components/form-field/form-field";
import { ParamForm } from "../../components/param-form/param-form";
import {
  changedFields,
  defaultValues,
  errorField,
  fieldMessage,
  schemaFields,
  exactlyOneOf,
  spanErrors,
  toParams,
  valuesFromRun,
  type FieldValue,
  type FormValues,
} from "../../components/param-form/param-form-utils";
import { PlanSelect } from "../../components/plan-select/plan-select";
import { RepeatControl } from "../../components/repeat-control/repeat-control";
import { REPEAT_DEFAULTS, repeatApiError, toRepeat } from "../../components/repeat-control/repeat-utils";
import { formatDuration } from "../../lib/format-utils";
import { useDebounced } from "../../lib/use-debounced";
import "./queue-page.css";

const DRIVES_POLL_MS = 10_000;

function parseDrive(raw: string | null): number | null {
  return raw && /^\d+$/.test(raw) ? Number(raw) : null;
}

/** The run whose parameters are queued again (`?from=ID`), when there is one. */
function useQueryRun(id: number | null) {
  return useQuery({ ...runQuery(id ?? 0), enabled: id !== null });
}

export function QueuePage() {
  const plans = usePlans();
  const drives = useDrives({ refetchInterval: DRIVES_POLL_MS });
  const me = useMe();
  const mayQueue = canWrite(me.data);

  return (
    <div className="page">
      <div className="page-header">
        <h1>Queue a test</h1>
        <Link to="/plans">All plans and their parameters</Link>
      </div>
      {!me.isPending && !mayQueue && (
        <p className="queue-page__note" role="note">
          You are signed in as a viewer: queueing a test needs a reviewer. The form is shown read-only.
        </p>
      )}
      {plans.isError && <ErrorBox error={plans.error} title="Could not load the plans" />}
      {drives.isError && <ErrorBox error={drives.error} title="Could not load the drives" />}
      {plans.data && drives.data ? (
        <QueueForm plans={plans.data} drives={drives.data} disabled={!mayQueue} />
      ) : (
        !plans.isError &&
        !drives.isError && (
          <div className="section queue-page__placeholder" aria-busy="true">
            <p className="muted">Loading drives and plans…</p>
          </div>
        )
      )}
    </div>
  );
}

interface QueueFormProps {
  plans: Plan[];
  drives: NonNullable<ReturnType<typeof useDrives>["data"]>;
  disabled: boolean;
}

function QueueForm({ plans, drives, disabled }: QueueFormProps) {
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const driveId = parseDrive(searchParams.get("drive"));
  const planKey = searchParams.get("plan");
  const plan = plans.find((p) => p.key === planKey) ?? null;
  const drive = drives.find((d) => d.id === driveId) ?? null;
  // "Queue this plan again" (Run page): the run's parameters, not the review defaults.
  const fromId = parseDrive(searchParams.get("from"));
  const fromRun = useQueryRun(fromId);
  const again = fromRun.data && plan && fromRun.data.plan === plan.key ? fromRun.data : null;

  const fields = useMemo(() => schemaFields(plan?.params_schema), [plan]);
  // What was typed, per plan: switching plans and back keeps it.
  const [typed, setTyped] = useState<Record<string, FormValues>>({});
  const values = useMemo(
    () =>
      plan
        ? (typed[plan.key] ??
          (again ? valuesFromRun(fields, again.params as Record<string, unknown>) : defaultValues(fields)))
        : {},
    [plan, typed, fields, again],
  );
  const [serial, setSerial] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const create = useCreateRun();
  const [repeatValues, setRepeatValues] = useState(REPEAT_DEFAULTS);
  const repeat = toRepeat(repeatValues);
  const repeatApi = create.isError ? repeatApiError(create.error) : null;
  const repeatErrors = repeatApi ? { ...repeat.errors, [repeatApi.field]: repeatApi.message } : repeat.errors;

  const capacity = drive?.model.capacity_bytes ?? null;
  const local = useMemo(() => {
    const found = toParams(fields, values, exactlyOneOf(plan?.params_schema));
    // A span larger than the drive is said here, without posting an estimate the api would
    // refuse (422) each time the page opens with the review default of a small drive.
    return { ...found, errors: { ...spanErrors(fields, values, capacity), ...found.errors } };
  }, [fields, values, plan, capacity]);
  const misfits = again ? Object.keys(spanErrors(fields, values, capacity)) : [];
  const ready = plan !== null && drive !== null && Object.keys(local.errors).length === 0;
  const request = useDebounced(
    ready ? { key: plan.key, driveId: drive.id, params: local.params } : null,
    250,
  );
  const estimate = usePlanEstimate(request);

  const paramNames = fields.map((f) => f.name);
  // The api's verdict on the values as they are now (not on an older estimate).
  const estimateCurrent =
    request !== null && JSON.stringify(request.params) === JSON.stringify(local.params);
  const estimateField = estimate.isError && estimateCurrent ? errorField(estimate.error, paramNames) : null;
  const submitField = create.isError ? errorField(create.error, paramNames) : null;

  const errors: Record<string, string> = { ...local.errors };
  if (estimateField && paramNames.includes(estimateField) && !errors[estimateField]) {
    errors[estimateField] = fieldMessage(errorMessage(estimate.error), estimateField);
  }
  if (submitField && paramNames.includes(submitField) && !errors[submitField]) {
    errors[submitField] = fieldMessage(errorMessage(create.error), submitField);
  }
  const serialError =
    submitField === "confirm_serial"
      ? errorMessage(create.error)
      : submitted && plan?.destructive && !serial.trim()
        ? "Type the drive's serial to confirm that it may be overwritten."
        : null;
  const driveError =
    submitField === "drive_id"
      ? errorMessage(create.error)
      : submitted && !drive
        ? "Choose a drive."
        : null;
  const planError = submitField === "plan" ? errorMessage(create.error) : submitted && !plan ? "Choose a plan." : null;
  const formError = create.isError && submitField === null && repeatApi === null ? create.error : null;

  const setParam = (name: string, value: FieldValue) => {
    if (!plan) return;
    create.reset();
    setTyped((prev) => ({ ...prev, [plan.key]: { ...values, [name]: value } }));
  };
  const resetDefaults = () => {
    if (!plan) return;
    create.reset();
    setTyped((prev) => {
      const next = { ...prev };
      delete next[plan.key];
      return next;
    });
  };
  const setQuery = (name: "drive" | "plan", value: string | null) => {
    create.reset();
    setSearchParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value === null) next.delete(name);
        else next.set(name, value);
        return next;
      },
      { replace: true },
    );
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!plan || !drive || Object.keys(local.errors).length > 0) return;
    if (plan.destructive && !serial.trim()) return;
    if (Object.keys(repeat.errors).length > 0) return;
    create.mutate(
      {
        plan: plan.key,
        drive_id: drive.id,
        params: local.params,
        confirm_serial: plan.destructive ? serial.trim() : null,
        repeat: repeat.repeat,
      },
      // A series opens on its own page (its runs, its figures), a single run on the run's.
      { onSuccess: (run) => void navigate(run.series_id != null ? `/series/${run.series_id}` : `/runs/${run.id}`) },
    );
  };

  return (
    <form className="queue-page" onSubmit={onSubmit} noValidate>
      <fieldset className="queue-page__fieldset" disabled={disabled}>
        <section className="section" aria-labelledby="queue-drive">
          <div className="section__header">
            <h2 id="queue-drive">1. Drive</h2>
            <span className="muted">{drives.length} registered</span>
          </div>
          <div className="section__body">
            <DriveSelect
              drives={drives}
              value={driveId}
              onChange={(id) => setQuery("drive", id === null ? null : String(id))}
              error={driveError}
            />
          </div>
        </section>

        <section className="section" aria-labelledby="queue-plan">
          <div className="section__header">
            <h2 id="queue-plan">2. Plan</h2>
            {planError && (
              <span className="form-field__error" role="alert">
                {planError}
              </span>
            )}
          </div>
          <div className="section__body">
            <PlanSelect
              plans={plans}
              value={plan?.key ?? null}
              onChange={(key) => setQuery("plan", key)}
              driveId={drive?.id ?? null}
              capacityBytes={drive?.model.capacity_bytes ?? null}
            />
          </div>
        </section>

        {plan && (
          <section className="section" aria-labelledby="queue-params">
            <div className="section__header">
              <h2 id="queue-params">3. Parameters</h2>
              {again && (
                <span className="muted" data-testid="queue-again" role="note">
                  The parameters of run {again.id}
                  {misfits.length > 0
                    ? `; ${misfits.join(", ")} no longer fit${misfits.length === 1 ? "s" : ""} this drive (marked below)`
                    : ""}
                </span>
              )}
              <button
                type="button"
                className="button"
                onClick={resetDefaults}
                disabled={changedFields(fields, values).length === 0}
              >
                Reset to review defaults
              </button>
            </div>
            <div className="section__body">
              {fields.length === 0 ? (
                <p className="muted">This plan has no parameters.</p>
              ) : (
                <ParamForm
                  fields={fields}
                  values={values}
                  errors={errors}
                  onChange={setParam}
                  changed={changedFields(fields, values)}
                />
              )}
            </div>
          </section>
        )}

        <section className="section" aria-labelledby="queue-confirm">
          <div className="section__header">
            <h2 id="queue-confirm">{plan ? "4. Queue" : "Queue"}</h2>
          </div>
          <div className="section__body queue-page__confirm">
            <EstimatePanel
              estimate={estimate.data ?? null}
              loading={estimate.isFetching}
              failed={estimate.isError && estimateCurrent}
              failure={
                estimate.isError && estimateCurrent && !paramNames.includes(estimateField ?? "")
                  ? errorMessage(estimate.error)
                  : null
              }
              stale={!estimateCurrent || estimate.isError}
              ready={plan !== null && drive !== null}
            />
            <RepeatControl
              values={repeatValues}
              onChange={(v) => {
                create.reset();
                setRepeatValues(v);
              }}
              errors={repeatErrors}
            />
            {plan?.destructive && drive && (
              <FormField
                label={
                  <>
                    Type the serial of {drive.model.vendor} {drive.model.model} (
                    <span className="mono">{drive.serial}</span>) to confirm
                  </>
                }
                help={`${plan.title} overwrites the drive: every byte on it is lost.`}
                error={serialError}
                className="queue-page__serial"
              >
                <input
                  type="text"
                  name="confirm_serial"
                  className="mono"
                  value={serial}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => {
                    create.reset();
                    setSerial(e.target.value);
                  }}
                />
              </FormField>
            )}
            {formError !== null && <ErrorBox error={formError} title="The run was not queued" />}
            <div className="queue-page__actions">
              <button type="submit" className="button button--primary" disabled={create.isPending}>
                {create.isPending ? "Queueing…" : "Queue test"}
              </button>
              {drive && drive.active_run_id !== null && (
                <span className="muted">
                  The drive is busy: the run waits behind run #{drive.active_run_id}
                  {(drive.waiting_run_ids ?? []).length > 0 ? ` and ${(drive.waiting_run_ids ?? []).length} more` : ""}.
                </span>
              )}
            </div>
          </div>
        </section>
      </fieldset>
    </form>
  );
}

function EstimatePanel({
  estimate,
  loading,
  failed,
  failure,
  stale,
  ready,
}: {
  estimate: PlanEstimate | null;
  loading: boolean;
  failed: boolean;
  /** An estimate error that is not about one parameter (shown here, not by a field). */
  failure: string | null;
  stale: boolean;
  ready: boolean;
}) {
  if (!ready) return <p className="muted queue-page__estimate">Pick a drive and a plan.</p>;
  if (failure) {
    return (
      <p className="queue-page__estimate form-field__error" role="alert">
        No estimate: {failure}
      </p>
    );
  }
  if (!estimate) {
    return (
      <p className="muted queue-page__estimate">
        {loading
          ? "Estimating…"
          : failed
            ? "No estimate: the parameters marked above need fixing."
            : "No estimate yet."}
      </p>
    );
  }
  return (
    <div className={stale ? "queue-page__estimate queue-page__estimate--stale" : "queue-page__estimate"}>
      <p>
        <strong>Estimated duration: {formatDuration(estimate.estimate_s)}</strong>{" "}
        <span className="muted">
          for {estimate.steps.length} step{estimate.steps.length === 1 ? "" : "s"}
          {stale ? " (for the last valid parameters)" : ""}
        </span>
      </p>
      {estimate.notes.length > 0 && (
        <ul className="queue-page__notes">
          {estimate.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      <details>
        <summary>Steps</summary>
        <ol className="queue-page__steps">
          {estimate.steps.map((s) => (
            <li key={s.idx}>
              <span className="mono">{s.name}</span>
              {s.label !== s.name && <span className="muted"> · {s.label}</span>}
              <span className="num"> {formatDuration(s.estimate_s)}</span>
            </li>
          ))}
        </ol>
      </details>
    </div>
  );
}
