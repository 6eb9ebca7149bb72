import { describe, expect, it } from "vitest";
import { decades, formatLatency, qdTicks, qosCsv, qosValue, testWords } from "./qos-utils";

const q = {
  ios: 10_000,
  binned_ios: 10_000,
  mean_us: 120.5,
  min_us: 50,
  max_us: 9_000,
  percentiles: { p50: 100, p99: 800, "p99.999": null },
  unsupported: { "p99.999": "not enough I/Os: 10,000 completed" },
};

describe("qos utils", () => {
  it("says why a percentile is missing", () => {
    expect(qosValue(q, "p99")).toEqual({ us: 800 });
    expect(qosValue(q, "p99.999").us).toBeNull();
    expect(qosValue(q, "p99.999").reason).toContain("not enough I/Os");
    expect(qosValue(q, "max").us).toBe(9_000);
  });
  it("formats latencies in their unit", () => {
    expect(formatLatency(87.34)).toBe("87.3 µs");
    expect(formatLatency(1250)).toBe("1.25 ms");
    expect(formatLatency(2.5e6)).toBe("2.50 s");
    expect(formatLatency(null)).toBe("—");
  });
  it("spans decades and powers of two", () => {
    expect(decades(3, 2000)).toEqual({ domain: [1, 10000], ticks: [1, 10, 100, 1000, 10000] });
    expect(qdTicks([1, 8, 32])).toEqual([1, 2, 4, 8, 16, 32]);
  });
  it("exports rows with empty cells for missing percentiles", () => {
    const text = qosCsv([{ label: "4K QD1", direction: "read", qos: q }], { title: "QoS" });
    const last = text.trim().split("\n").pop()!;
    expect(last.startsWith("4K QD1,read,10000,120.5,100,800,")).toBe(true);
    expect(last.endsWith(",,9000")).toBe(true);
  });
});

describe("testWords", () => {
  it("names plans and tests by their keys, not by a variant's", () => {
    const w = testWords([
      { metric: "four-corners:randread-4k-qd3:read_iops", names: { plan: "Four corners", test: "4K random read QD3" } },
      { metric: "four-corners:randread-4k-qd3@op25:read_iops", names: { plan: "Four corners", test: "4K random read QD3, 25% OP" } },
    ]);
    expect(w.plans.get("four-corners")).toBe("Four corners");
    expect(w.tests.get("four-corners:randread-4k-qd3")).toBe("4K random read QD3");
    expect(w.tests.size).toBe(1);
  });
});
