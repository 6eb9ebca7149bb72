import { describe, expect, it } from "vitest";
import type { Sample } from "../../api/types";
import { copyCurves, fileCopyCompare, standstillText, type FileCopyFinding } from "./file-copy-utils";

const copy = (t_start_ms: number, start_ms: number, seconds: number, stills: [number, number][]) => ({
  phase: "x",
  t_start_ms,
  start_ms,
  bytes: 1,
  seconds,
  mbps: 20,
  median_mbps: 20,
  standstills: stills.map(([start_s, duration_s]) => ({ start_s, duration_s })),
  count: stills.length,
  total_s: stills.reduce((a, [, d]) => a + d, 0),
  longest_s: Math.max(0, ...stills.map(([, d]) => d)),
  short_count: 0,
  short_total_s: 0,
  min_standstill_s: 0.3,
  rel_threshold: 0.1,
});

const found = {
  first: copy(5000, 300, 1, []),
  repeated: copy(8000, 0, 1, [[0.5, 0.5]]),
  deleted_bytes: 1,
  copy_bytes: 1,
  words: [],
} as unknown as FileCopyFinding;

const sample = (t: number, write_mbps: number) => ({ t, dt: 0.5, write_mbps }) as unknown as Sample;

describe("copyCurves", () => {
  it("puts each copy's samples on its own clock from its first write, the rest left out", () => {
    const samples = [sample(3, 99), sample(5.3, 0), sample(5.8, 20), sample(6.3, 21), sample(7, 99), sample(8.5, 18), sample(9, 0)];
    const rows = copyCurves(samples, found);
    expect(rows.filter((r) => r.first !== null)).toEqual([
      { t: 0.5, first: 20, repeated: null },
      { t: 1, first: 21, repeated: null },
    ]);
    expect(rows.filter((r) => r.repeated !== null)).toEqual([
      { t: 0.5, first: null, repeated: 18 },
      { t: 1, first: null, repeated: 0 },
    ]);
  });
});

describe("standstillText", () => {
  it("says how often and how long", () => {
    expect(standstillText(found.first)).toBe("none");
    expect(standstillText(copy(0, 0, 8, [[1, 1.5], [3.5, 1.5]]))).toBe("twice for 3.0 s");
  });
});

describe("fileCopyCompare", () => {
  it("reads each drive's copies from the comparison's metrics, in the drives' order", () => {
    const row = (drive_id: number, value: number) => ({ drive_id, label: `d${drive_id}`, value });
    const rows = fileCopyCompare(
      [
        { metric: "file-copy:file-copy:file_copy_first_mbps", rows: [row(2, 500), row(1, 400)] },
        { metric: "file-copy:file-copy:file_copy_repeated_standstills", rows: [row(1, 4)] },
        { metric: "file-copy:file-copy:file_copy_repeated_standstill_s", rows: [row(1, 12)] },
        { metric: "slc-cache:slc-fill:slc_cache_gb", rows: [row(3, 1)] },
      ],
      [1, 2, 3],
    );
    expect(rows.map((d) => d.driveId)).toEqual([1, 2]);
    expect(rows[0]).toMatchObject({ firstMbps: 400, repeatedCount: 4, repeatedStillS: 12, firstCount: null });
    expect(rows[1]).toMatchObject({ firstMbps: 500, repeatedCount: null });
  });
});
