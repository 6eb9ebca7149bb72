import type { BadgeTone } from "../badge/badge";

/** A verdict as the api words it: on a comparison (better / worse) or a firmware change. */
export type Verdict =
  | "better"
  | "worse"
  | "improvement"
  | "regression"
  | "within noise"
  | "1 run: significance unknown"
  | null
  | undefined;

/** What the badge shows; `hollow`: an outlined badge (the runs cannot say). */
export interface VerdictLook {
  tone: BadgeTone;
  hollow: boolean;
  label: string;
}

/** The badge's colour and word for a verdict. `null`: a figure with no better direction. */
export function verdictLook(verdict: Verdict): VerdictLook {
  switch (verdict) {
    case "better":
    case "improvement":
      return { tone: "ok", hollow: false, label: verdict };
    case "worse":
    case "regression":
      return { tone: "danger", hollow: false, label: verdict };
    case "within noise":
      return { tone: "neutral", hollow: false, label: "within noise" };
    case "1 run: significance unknown":
      return { tone: "neutral", hollow: true, label: "unknown" };
    default:
      return { tone: "neutral", hollow: false, label: "difference" };
  }
}

/** Whether a verdict says the runs show a real change (better, worse, improvement, regression). */
export function isSignificant(verdict: Verdict): boolean {
  return verdict === "better" || verdict === "worse" || verdict === "improvement" || verdict === "regression";
}

/** A signed percentage: 3.14 -> "+3.1%", -2.06 -> "−2.1%", -0.04 -> "0.0%", null -> "—". */
export function formatSignedPct(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return "—";
  const digits = Math.abs(pct) >= 100 ? 0 : 1;
  const text = Math.abs(pct).toFixed(digits);
  if (Number(text) === 0) return `${(0).toFixed(digits)}%`;
  return `${pct > 0 ? "+" : "−"}${text}%`;
}

/** The difference with its 95% interval: "+3.1% [+1.2%, +5.0%]"; without an interval, "+3.1%". */
export function formatDiff(
  diff: number | null | undefined,
  low: number | null | undefined,
  high: number | null | undefined,
): string {
  const head = formatSignedPct(diff);
  if (diff === null || diff === undefined) return head;
  if (low === null || low === undefined || high === null || high === undefined) return head;
  return `${head} [${formatSignedPct(low)}, ${formatSignedPct(high)}]`;
}

/** How the verdict was reached, for the badge's tooltip. */
export const METHOD_TEXT =
  "Welch's t-test of the two sides' runs measured alike; a difference is called better or " +
  "worse only when the runs show it larger than 1% of the reference at a 5% false discovery " +
  "rate (Benjamini-Hochberg over the figures shown at once), else within noise. One run on " +
  "either side: significance unknown. The interval is the 95% confidence interval of the " +
  "difference.";

/** The badge's tooltip: the runs on each side, the difference, q, and the method. */
export function verdictTitle(args: {
  verdict: Verdict;
  diff: number | null | undefined;
  low: number | null | undefined;
  high: number | null | undefined;
  q?: number | null | undefined;
  /** e.g. "4 runs vs 3 runs" */
  runs: string;
}): string {
  const parts: string[] = [];
  if (args.verdict === null || args.verdict === undefined) {
    parts.push("A figure with no better direction: the difference is shown, not judged.");
  } else if (args.verdict === "1 run: significance unknown") {
    parts.push("1 run on one side: its run-to-run noise is unknown, so the difference cannot be judged.");
  } else {
    parts.push(`Verdict: ${args.verdict}.`);
  }
  parts.push(`${args.runs}.`);
  if (args.diff !== null && args.diff !== undefined) {
    parts.push(`Difference ${formatDiff(args.diff, args.low, args.high)} (95% interval).`);
  }
  if (args.q !== null && args.q !== undefined && Number.isFinite(args.q)) {
    parts.push(`Adjusted p of a difference over 1%: ${args.q < 0.001 ? "< 0.001" : args.q.toFixed(3)}.`);
  }
  parts.push(METHOD_TEXT);
  return parts.join(" ");
}

export function runsText(n: number): string {
  return `${n} run${n === 1 ? "" : "s"}`;
}
