import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { VersusReview } from "../../api/types";
import { VerdictBadge } from "./verdict-badge";
import { formatDiff, formatSignedPct, isSignificant, verdictLook, verdictTitle } from "./verdict-utils";

const review = (over: Partial<VersusReview>): VersusReview => ({
  review_runs: 5,
  runs: 4,
  diff_pct: 3.14,
  low_pct: 1.2,
  high_pct: 5.04,
  p: 0.001,
  q: 0.004,
  verdict: "better",
  ...over,
});

describe("verdictLook", () => {
  it("colours only significant changes", () => {
    expect(verdictLook("better")).toEqual({ tone: "ok", hollow: false, label: "better" });
    expect(verdictLook("improvement").tone).toBe("ok");
    expect(verdictLook("worse").tone).toBe("danger");
    expect(verdictLook("regression")).toEqual({ tone: "danger", hollow: false, label: "regression" });
    expect(verdictLook("within noise")).toEqual({ tone: "neutral", hollow: false, label: "within noise" });
  });
  it("shows an unknown verdict hollow", () => {
    expect(verdictLook("1 run: significance unknown")).toEqual({ tone: "neutral", hollow: true, label: "unknown" });
  });
  it("does not judge a figure with no better direction", () => {
    expect(verdictLook(null).label).toBe("difference");
    expect(isSignificant(null)).toBe(false);
    expect(isSignificant("within noise")).toBe(false);
    expect(isSignificant("regression")).toBe(true);
  });
});

describe("formatSignedPct / formatDiff", () => {
  it("signs the difference", () => {
    expect(formatSignedPct(3.14)).toBe("+3.1%");
    expect(formatSignedPct(-2.06)).toBe("−2.1%");
    expect(formatSignedPct(-0.04)).toBe("0.0%");
    expect(formatSignedPct(150.4)).toBe("+150%");
    expect(formatSignedPct(null)).toBe("—");
    expect(formatSignedPct(Number.NaN)).toBe("—");
  });
  it("adds the interval when there is one", () => {
    expect(formatDiff(3.14, 1.2, 5.04)).toBe("+3.1% [+1.2%, +5.0%]");
    expect(formatDiff(-1, -2.5, 0.5)).toBe("−1.0% [−2.5%, +0.5%]");
    expect(formatDiff(3.14, null, null)).toBe("+3.1%");
    expect(formatDiff(null, 1, 2)).toBe("—");
  });
});

describe("verdictTitle", () => {
  it("says the runs, the difference, q and the method", () => {
    const t = verdictTitle({ verdict: "worse", diff: -4, low: -6, high: -2, q: 0.0002, runs: "3 runs vs 3 runs" });
    expect(t).toContain("Verdict: worse.");
    expect(t).toContain("3 runs vs 3 runs.");
    expect(t).toContain("−4.0% [−6.0%, −2.0%]");
    expect(t).toContain("< 0.001");
    expect(t).toContain("Welch's t-test");
  });
  it("explains an unknown verdict", () => {
    const t = verdictTitle({ verdict: "1 run: significance unknown", diff: null, low: null, high: null, runs: "1 run vs 4 runs" });
    expect(t).toContain("cannot be judged");
    expect(t).not.toContain("Difference");
  });
});

describe("VerdictBadge", () => {
  it("renders the verdict, the difference with its interval and a tooltip", () => {
    const html = renderToStaticMarkup(createElement(VerdictBadge, { review: review({}) }));
    expect(html).toContain("badge--ok");
    expect(html).toContain(">better<");
    expect(html).toContain("+3.1% [+1.2%, +5.0%]");
    expect(html).toContain("5 runs of the drive under review vs 4 runs");
    expect(html).toContain('data-verdict="better"');
  });
  it("renders an unknown verdict hollow, without a difference", () => {
    const html = renderToStaticMarkup(
      createElement(VerdictBadge, {
        review: review({ review_runs: 1, diff_pct: null, low_pct: null, high_pct: null, p: null, q: null, verdict: "1 run: significance unknown" }),
      }),
    );
    expect(html).toContain("badge--hollow");
    expect(html).toContain(">unknown<");
    expect(html).not.toContain("verdict-badge__diff");
  });
  it("renders within noise grey", () => {
    const html = renderToStaticMarkup(createElement(VerdictBadge, { review: review({ verdict: "within noise", diff_pct: 0.4, low_pct: -0.8, high_pct: 1.6 }) }));
    expect(html).toContain("badge--neutral");
    expect(html).not.toContain("badge--hollow");
    expect(html).toContain("+0.4% [−0.8%, +1.6%]");
  });
});
