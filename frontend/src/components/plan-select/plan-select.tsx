import { usePlanEstimate } from "../../api/plans/queries";
import type { Plan } from "../../api/types";
import { formatDuration } from "../../lib/format-utils";
import { Badge } from "../badge/badge";
import { defaultValues, exactlyOneOf, schemaFields, spanErrors, toParams } from "../param-form/param-form-utils";
import "./plan-select.css";

interface PlanSelectProps {
  plans: Plan[];
  value: string | null;
  onChange: (key: string) => void;
  /** The drive the estimates are for; none: no estimates. */
  driveId: number | null;
  /** The drive's capacity: a default span larger than it is said, not asked of the api. */
  capacityBytes?: number | null;
  disabled?: boolean;
}

/** What a plan's defaults leave to choose (trace-replay: a trace or a profile), if anything:
 * its estimate is not asked of the api until then. */
function needsChoice(plan: Plan): string | null {
  const fields = schemaFields(plan.params_schema);
  const { errors } = toParams(fields, defaultValues(fields), exactlyOneOf(plan.params_schema));
  const first = Object.entries(errors)[0];
  return first ? `${first[0]}: ${first[1]}` : null;
}

/** A default span larger than the drive (8g on a 4 GiB drive), as the form says it. */
function misfit(plan: Plan, capacity: number | null | undefined): string | null {
  const fields = schemaFields(plan.params_schema);
  const first = Object.entries(spanErrors(fields, defaultValues(fields), capacity))[0];
  return first ? `${first[0]} ${first[1]}` : null;
}

function DefaultEstimate({
  plan,
  driveId,
  capacity,
}: {
  plan: Plan;
  driveId: number | null;
  capacity: number | null | undefined;
}) {
  const needs = needsChoice(plan);
  const tooBig = misfit(plan, capacity);
  const estimate = usePlanEstimate(
    driveId === null || needs || tooBig ? null : { key: plan.key, driveId, params: {} },
  );
  if (driveId === null) return <span className="muted">pick a drive for its duration</span>;
  if (needs) return <span className="muted">no default duration ({needs})</span>;
  if (tooBig) return <span className="muted">review defaults do not fit this drive: {tooBig}</span>;
  if (estimate.isError) return <span className="muted">no estimate: see the form</span>;
  if (!estimate.data) return <span className="muted">estimating…</span>;
  return (
    <span title="With the review defaults on this drive">
      ≈ {formatDuration(estimate.data.estimate_s)} at review defaults
    </span>
  );
}

/** The plans as radio cards: title, key, description, whether it writes, how long it takes. */
export function PlanSelect({ plans, value, onChange, driveId, capacityBytes, disabled }: PlanSelectProps) {
  return (
    <fieldset className="plan-select" disabled={disabled}>
      <legend className="visually-hidden">Plan</legend>
      {plans.map((plan) => {
        const checked = plan.key === value;
        return (
          <label
            key={plan.key}
            className={checked ? "plan-select__card plan-select__card--checked" : "plan-select__card"}
          >
            <input
              type="radio"
              name="plan"
              value={plan.key}
              checked={checked}
              onChange={() => onChange(plan.key)}
            />
            <span className="plan-select__body">
              <span className="plan-select__title">
                {plan.title}
                {plan.destructive && (
                  <Badge tone="danger" title="Overwrites the drive: every byte on it is lost">
                    destructive
                  </Badge>
                )}
              </span>
              <code className="plan-select__key">{plan.key}</code>
              <span className="plan-select__description">{plan.description}</span>
              <span className="plan-select__estimate">
                <DefaultEstimate plan={plan} driveId={driveId} capacity={capacityBytes} />
              </span>
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}
