import { describe, expect, it } from "vitest";
import { compareMeasures, filterMetrics, groupByTest, naturalCompare } from "./metric-select-utils";

const m = (metric: string, plan: string, test: string, measure: string) => ({
  metric,
  names: { plan, test, measure, title: `${test}: ${measure}` },
});

describe("metric select utils", () => {
  it("orders numbers by value, percentiles included", () => {
    const p = ["99.999th", "99.99th", "99th", "99.9th"].map((x) => `${x} percentile latency`);
    expect([...p].sort(naturalCompare)).toEqual([
      "99th percentile latency",
      "99.9th percentile latency",
      "99.99th percentile latency",
      "99.999th percentile latency",
    ]);
    expect(["QD32", "QD3", "QD128"].sort(naturalCompare)).toEqual(["QD3", "QD32", "QD128"]);
  });
  it("puts rates before latencies, mean before percentiles before maximum", () => {
    const list = ["maximum latency", "99th percentile latency", "IOPS", "mean latency", "MB/s"];
    expect(list.sort(compareMeasures)).toEqual([
      "MB/s",
      "IOPS",
      "mean latency",
      "99th percentile latency",
      "maximum latency",
    ]);
  });
  const all = [
    m("fc:randwrite-4k-qd32:write_iops", "Four corners", "4K random write QD32", "IOPS"),
    m("fc:randwrite-4k-qd3:write_iops", "Four corners", "4K random write QD3", "IOPS"),
    m("fc:randread-4k-qd3:read_lat_p99_9_us", "Four corners", "4K random read QD3", "99.9th percentile latency"),
    m("fc:randread-4k-qd3:read_lat_p99_us", "Four corners", "4K random read QD3", "99th percentile latency"),
    m("c:consistency:iops_mean_last400", "Performance consistency", "4K random write QD32", "mean IOPS"),
  ];
  it("groups by plan and test in natural order", () => {
    const groups = groupByTest(all);
    expect(groups.map(([g]) => g)).toEqual([
      "Four corners · 4K random read QD3",
      "Four corners · 4K random write QD3",
      "Four corners · 4K random write QD32",
      "Performance consistency · 4K random write QD32",
    ]);
    expect(groups[0]![1].map((x) => x.names.measure)).toEqual([
      "99th percentile latency",
      "99.9th percentile latency",
    ]);
  });
  it("finds metrics by every word typed", () => {
    expect(filterMetrics(all, "qd32 iops").map((x) => x.metric)).toEqual([
      "fc:randwrite-4k-qd32:write_iops",
      "c:consistency:iops_mean_last400",
    ]);
    expect(filterMetrics(all, "p99.9").map((x) => x.metric)).toEqual([
      "fc:randread-4k-qd3:read_lat_p99_9_us",
    ]);
    expect(filterMetrics(all, "consistency mean")).toHaveLength(1);
    expect(filterMetrics(all, "")).toHaveLength(5);
  });
});
