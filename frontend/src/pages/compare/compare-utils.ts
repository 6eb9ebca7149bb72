/** The Compare page's state in its URL: `/compare?drives=1,2,3&review=2`, and the metrics
 * the reader added as bar charts (`&metrics=plan:step:metric,...`), which the Report link
 * carries too. */

export interface CompareState {
  drives: number[];
  review: number | null;
  /** Metrics added to the headline bar charts, in the order added. */
  metrics?: string[];
}

const METRIC_ID = /^[\w.-]+:[\w.@-]+:\w+$/;

export function parseMetrics(text: string | null): string[] {
  if (!text) return [];
  return Array.from(new Set(text.split(",").map((s) => s.trim()).filter((m) => METRIC_ID.test(m))));
}

export function parseIds(text: string | null): number[] {
  if (!text) return [];
  const ids = text
    .split(",")
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  return Array.from(new Set(ids));
}

export function readCompareState(params: URLSearchParams): CompareState {
  const drives = parseIds(params.get("drives"));
  const review = Number(params.get("review"));
  const metrics = parseMetrics(params.get("metrics"));
  return {
    drives,
    review: Number.isInteger(review) && drives.includes(review) ? review : null,
    ...(metrics.length ? { metrics } : {}),
  };
}

export function compareSearch(state: CompareState): string {
  const params = new URLSearchParams();
  if (state.drives.length) params.set("drives", state.drives.join(","));
  if (state.review !== null) params.set("review", String(state.review));
  if (state.metrics?.length) params.set("metrics", state.metrics.join(","));
  // Commas, and the colons and @ of metric ids, stay readable in the address bar.
  return params.toString().replace(/%2C/g, ",").replace(/%3A/g, ":").replace(/%40/g, "@");
}

/** A share's default title: the drives' short names. */
export function shareTitle(labels: string[]): string {
  const title = `Comparison: ${labels.join(" vs ")}`;
  return title.length > 200 ? `${title.slice(0, 197)}...` : title;
}
