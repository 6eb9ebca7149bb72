import { describe, expect, it } from "vitest";
import { compareSearch, parseIds, readCompareState, shareTitle } from "./compare-utils";

describe("compare URL state", () => {
  it("reads drives and the drive under review, ignoring junk", () => {
    expect(parseIds("3, 1,x,3,-2,0")).toEqual([3, 1]);
    expect(readCompareState(new URLSearchParams("drives=1,2,3&review=2"))).toEqual({
      drives: [1, 2, 3],
      review: 2,
    });
    // a drive under review must be among the drives
    expect(readCompareState(new URLSearchParams("drives=1&review=9")).review).toBeNull();
  });

  it("writes it back readably", () => {
    expect(compareSearch({ drives: [1, 2, 3], review: 2 })).toBe("drives=1,2,3&review=2");
    expect(compareSearch({ drives: [], review: null })).toBe("");
  });

  it("keeps the metrics added as charts, readably", () => {
    const state = readCompareState(
      new URLSearchParams("drives=1,2&metrics=four-corners:randread-4k-qd3:read_lat_p99_us,x,consistency:consistency-4k-qd32@op25:iops_min_last400"),
    );
    expect(state.metrics).toEqual([
      "four-corners:randread-4k-qd3:read_lat_p99_us",
      "consistency:consistency-4k-qd32@op25:iops_min_last400",
    ]);
    expect(compareSearch(state)).toBe(
      "drives=1,2&metrics=four-corners:randread-4k-qd3:read_lat_p99_us,consistency:consistency-4k-qd32@op25:iops_min_last400",
    );
    expect(readCompareState(new URLSearchParams("drives=1")).metrics).toBeUndefined();
  });

  it("titles a share", () => {
    expect(shareTitle(["A", "B"])).toBe("Comparison: A vs B");
    expect(shareTitle([ "x".repeat(300)]).length).toBe(200);
  });
});
