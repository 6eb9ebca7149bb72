import { describe, expect, it } from "vitest";
import { streamDown } from "./events";

describe("streamDown", () => {
  it("polls an active run whose stream closed on a final event it no longer shows", () => {
    // A stale answer put the run back to running after the stream ended: poll until it reads
    // the run as it is.
    expect(streamDown(true, "ended")).toBe(true);
    expect(streamDown(true, "reconnecting")).toBe(true);
    expect(streamDown(true, "failed")).toBe(true);
  });

  it("does not poll while a stream is open or opening, or for a run that has ended", () => {
    expect(streamDown(true, "live")).toBe(false);
    expect(streamDown(true, "connecting")).toBe(false);
    expect(streamDown(true, "idle")).toBe(false);
    for (const state of ["ended", "failed", "reconnecting", "live"] as const) {
      expect(streamDown(false, state)).toBe(false);
    }
  });
});
