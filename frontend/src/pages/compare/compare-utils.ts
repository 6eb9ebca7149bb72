/** The Compare page's state in its URL: `/compare?drives=1,2,3&review=2`. */

export interface CompareState {
  drives: number[];
  review: number | null;
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
  return {
    drives,
    review: Number.isInteger(review) && drives.includes(review) ? review : null,
  };
}

export function compareSearch(state: CompareState): string {
  const params = new URLSearchParams();
  if (state.drives.length) params.set("drives", state.drives.join(","));
  if (state.review !== null) params.set("review", String(state.review));
  // Commas stay readable in the address bar.
  return params.toString().replace(/%2C/g, ",");
}

/** A share's default title: the drives' short names. */
export function shareTitle(labels: string[]): string {
  const title = `Comparison: ${labels.join(" vs ")}`;
  return title.length > 200 ? `${title.slice(0, 197)}...` : title;
}
