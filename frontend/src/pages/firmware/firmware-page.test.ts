import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import type { FirmwareChange, FirmwareHistory, FirmwareMetric } from "../../api/types";
import { LoadedHistory } from "./firmware-page";

const variation = (mean: number, count: number, half: number | null) => ({
  count,
  mean,
  stddev: 1,
  min: mean - 1,
  max: mean + 1,
  spread_pct: 1,
  low: half === null ? null : mean - half,
  high: half === null ? null : mean + half,
});

const change = (over: Partial<FirmwareChange>): FirmwareChange => ({
  from_firmware: "1.00",
  to_firmware: "1.01",
  from_runs: 3,
  to_runs: 3,
  diff_pct: 0.3,
  low_pct: -1.1,
  high_pct: 1.7,
  p: 0.5,
  q: 0.8,
  verdict: "within noise",
  ...over,
});

const metric = (id: string, test: string, measure: string, c: FirmwareChange): FirmwareMetric => ({
  metric: id,
  names: { plan: "Four corners", test, measure, title: `${test}: ${measure}` },
  unit: "MB/s",
  lower_is_better: false,
  performance: true,
  by_firmware: [
    { firmware: "1.00", runs: variation(500, 3, 6) },
    { firmware: "1.01", runs: variation(470, 3, 5) },
  ],
  changes: [c],
});

const history: FirmwareHistory = {
  model_id: 7,
  label: "Acme Blaze 2 TB",
  simulated: false,
  firmwares: [
    { firmware: "1.00", first_run_at: "2026-11-01T10:00:00Z", runs: 3 },
    { firmware: "1.01", first_run_at: "2026-11-20T10:00:00Z", runs: 3 },
  ],
  metrics: [
    metric("four-corners:seqread:read_mbps", "128K sequential read QD1", "MB/s", change({})),
    metric(
      "four-corners:seqwrite:write_mbps",
      "128K sequential write QD1",
      "MB/s",
      change({ verdict: "regression", diff_pct: -6, low_pct: -7.5, high_pct: -4.5, q: 0.0001 }),
    ),
    metric(
      "four-corners:randread:read_mbps",
      "4K random read QD1",
      "MB/s",
      change({ verdict: "1 run: significance unknown", from_runs: 1, diff_pct: null, low_pct: null, high_pct: null }),
    ),
  ],
  drives: [{ drive_id: 12, name: "Blaze sample 1", firmwares: ["1.00", "1.01"] }],
  method: "Runs pooled by firmware; Welch's t-test.",
};

const render = (h: FirmwareHistory) =>
  renderToStaticMarkup(createElement(MemoryRouter, null, createElement(LoadedHistory, { history: h })));

describe("LoadedHistory", () => {
  const html = render(history);
  it("lists the versions, each figure's means with their intervals and each change's verdict", () => {
    expect(html).toContain("Firmware history: Acme Blaze 2 TB");
    expect(html).toContain("500 MB/s [494, 506]");
    expect(html).toContain("470 MB/s [465, 475]");
    expect(html).toContain('data-verdict="within noise"');
    expect(html).toContain("badge--hollow");
    expect(html).toContain("−6.0% [−7.5%, −4.5%]");
  });
  it("puts the significant changes in the summary at the top, the method at the bottom", () => {
    const summary = html.indexOf('data-testid="fw-summary"');
    const firstGroup = html.indexOf("128K sequential read QD1");
    const regression = html.indexOf('data-verdict="regression"');
    expect(summary).toBeGreaterThan(-1);
    expect(regression).toBeGreaterThan(summary);
    expect(regression).toBeLessThan(firstGroup);
    expect(html.lastIndexOf("Runs pooled by firmware")).toBeGreaterThan(html.lastIndexOf("4K random read QD1"));
  });
  it("opens the drive's last two versions as an article, the later under review", () => {
    expect(html).toContain('data-testid="fw-article"');
    expect(html).toContain('href="/models/7/firmware/article?drive=12&amp;firmware=1.00&amp;firmware=1.01"');
    expect(html).toContain("Open the article: 1.01 vs 1.00");
    const two = render({
      ...history,
      drives: [
        { drive_id: 12, name: "Blaze sample 1", firmwares: ["1.00"] },
        { drive_id: 13, name: "Blaze sample 2", firmwares: ["1.00", "1.01", "1.02"] },
      ],
    });
    // Only a drive with two versions is offered; alone, no drive choice.
    expect(two).toContain("firmware=1.01&amp;firmware=1.02");
    expect(two).not.toContain('name="fw-article-drive"');
    const none = render({ ...history, drives: [{ drive_id: 12, name: "Blaze sample 1", firmwares: ["1.00"] }] });
    expect(none).toContain("No drive of this model has finished runs on two firmware versions");
    expect(none).not.toContain("/firmware/article");
  });
  it("says when there is nothing to judge", () => {
    const one = render({ ...history, firmwares: history.firmwares.slice(0, 1), metrics: [] });
    expect(one).toContain("Only firmware 1.00 has been measured: no change to judge yet.");
    const calm = render({ ...history, metrics: history.metrics.slice(0, 1) });
    expect(calm).toContain("No change between versions is shown by the runs to be real");
  });
});
