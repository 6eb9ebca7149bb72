import { useId, useMemo, useState } from "react";
import type { CompareMetric } from "../../api/results/types";
import { compareMeasures, filterMetrics, groupByTest, naturalCompare } from "./metric-select-utils";

/** Metrics by plan, then by test, in words and natural order ("4K random read QD3" before
 * "QD32"; percentiles by value): the raw ids stay the option values (the api's and CSV's
 * keys). */
export function groupByPlan(metrics: CompareMetric[]): [string, CompareMetric[]][] {
  const groups = new Map<string, CompareMetric[]>();
  for (const m of metrics) groups.set(m.names.plan, [...(groups.get(m.names.plan) ?? []), m]);
  for (const list of groups.values()) {
    list.sort(
      (a, b) =>
        naturalCompare(a.names.test, b.names.test) ||
        compareMeasures(a.names.measure, b.names.measure),
    );
  }
  return Array.from(groups);
}

interface Props {
  label: string;
  metrics: CompareMetric[];
  value: string;
  onChange: (metric: string) => void;
  placeholder?: string;
  /** A search box above the list (Add a metric: hundreds of metrics). */
  searchable?: boolean;
}

/** A metric picker that reads as the review does: grouped by plan and test, named in words;
 * searchable by any words of its name. */
export function MetricSelect({ label, metrics, value, onChange, placeholder, searchable }: Props) {
  const [query, setQuery] = useState("");
  const searchId = useId();
  const shown = useMemo(
    () => (searchable ? filterMetrics(metrics, query) : metrics),
    [metrics, query, searchable],
  );
  const select = (
    <label className="chart-control">
      {label}{" "}
      <select
        value={value}
        onChange={(e) => e.target.value && onChange(e.target.value)}
        disabled={shown.length === 0}
      >
        {placeholder !== undefined && (
          <option value="">
            {searchable && query ? `${shown.length} found…` : placeholder}
          </option>
        )}
        {searchable
          ? groupByTest(shown).map(([group, list]) => (
              <optgroup key={group} label={group}>
                {list.map((m) => (
                  <option key={m.metric} value={m.metric} title={m.metric}>
                    {m.names.measure}
                  </option>
                ))}
              </optgroup>
            ))
          : groupByPlan(shown).map(([plan, list]) => (
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
  if (!searchable) return select;
  return (
    <span className="metric-search">
      <label className="chart-control" htmlFor={searchId}>
        Search metrics{" "}
        <input
          id={searchId}
          type="search"
          value={query}
          placeholder="e.g. qd32 p99.9"
          onChange={(e) => setQuery(e.target.value)}
        />
      </label>
      {select}
    </span>
  );
}
