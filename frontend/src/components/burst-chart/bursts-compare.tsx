import { useMemo } from "react";
import { MetricBars } from "../bar-chart/bar-chart";
import { barGroups } from "../bar-chart/bar-chart-utils";
import type { SectionContext } from "../comparison-view/comparison-view";
import { BURST_METRICS } from "./bursts-utils";

/** Compare: the drives side by side, a bar chart per burst test (its mean over the bursts:
 * IOPS for 4K random, MB/s for 128K sequential), each exportable like every bar chart. */
export function BurstsCompare({ comparison, reviewed, styles, fileBase }: SectionContext) {
  const groups = useMemo(
    () => barGroups(comparison?.metrics ?? [], BURST_METRICS, reviewed),
    [comparison, reviewed],
  );
  if (groups.length === 0) return <p className="muted">No drive has a finished qd1-bursts run.</p>;
  return (
    <div data-chart="bursts-compare">
      <div className="compare-grid">
        {groups.map((g) => (
          <div className="compare-card" key={g.key}>
            <MetricBars group={g} styles={styles} fileBase={fileBase} />
          </div>
        ))}
      </div>
      <p className="muted">
        Each figure is the mean over a test's bursts at QD1, every burst measured over its own duration (fio's totals
        of that burst), with idle between bursts (AnandTech's burst tests).
      </p>
    </div>
  );
}
