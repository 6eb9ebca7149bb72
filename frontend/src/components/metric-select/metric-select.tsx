import type { CompareMetric } from "../../api/results/types";

/** Metrics by plan, then by test, in words ("4K random write QD32, incompressible: IOPS"):
 * the raw ids stay the option values (the api's and CSV's keys). */
export function groupByPlan(metrics: CompareMetric[]): [string, CompareMetric[]][] {
  const groups = new Map<string, CompareMetric[]>();
  for (const m of metrics) groups.set(m.names.plan, [...(groups.get(m.names.plan) ?? []), m]);
  for (const list of groups.values()) {
    list.sort((a, b) => a.names.test.localeCompare(b.names.test) || a.names.measure.localeCompare(b.names.measure));
  }
  return Array.from(groups);
}

interface Props {
  label: string;
  metrics: CompareMetric[];
  value: string;
  onChange: (metric: string) => void;
  placeholder?: string;
}

/** A metric picker that reads as the review does: grouped by plan, named in words. */
export function MetricSelect({ label, metrics, value, onChange, placeholder }: Props) {
  return (
    <label className="chart-control">
      {label}{" "}
      <select
        value={value}
        onChange={(e) => e.target.value && onChange(e.target.value)}
        disabled={metrics.length === 0}
      >
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {groupByPlan(metrics).map(([plan, list]) => (
          <optgroup key={plan} label={plan}>
            {list.map((m) => (
              <option key={m.metric} value={m.metric} title={m.metric}>
                {m.names.title}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
