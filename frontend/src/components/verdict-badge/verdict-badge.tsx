import type { VersusReview } from "../../api/types";
import { Badge } from "../badge/badge";
import { formatDiff, runsText, verdictLook, verdictTitle, type Verdict } from "./verdict-utils";
import "./verdict-badge.css";

interface VerdictMarkProps {
  verdict: Verdict;
  diff: number | null | undefined;
  low: number | null | undefined;
  high: number | null | undefined;
  q?: number | null | undefined;
  /** The runs on each side, in words, for the tooltip. */
  runs: string;
  /** Show the difference with its interval next to the badge (default true). */
  showDiff?: boolean;
}

/** A verdict as a badge (improvement green, regression red, within noise grey, unknown hollow)
 * with the difference and its 95% interval; the tooltip says how it was reached. */
export function VerdictMark({ verdict, diff, low, high, q, runs, showDiff = true }: VerdictMarkProps) {
  const look = verdictLook(verdict);
  const title = verdictTitle({ verdict, diff, low, high, q, runs });
  return (
    <span className="verdict-badge" title={title} data-verdict={verdict ?? "none"}>
      {look.hollow ? (
        <span className="badge badge--neutral badge--hollow">{look.label}</span>
      ) : (
        <Badge tone={look.tone}>{look.label}</Badge>
      )}
      {showDiff && diff !== null && diff !== undefined && (
        <span className="verdict-badge__diff num">{formatDiff(diff, low, high)}</span>
      )}
    </span>
  );
}

/** The drive under review against another drive (a row of Compare, Side by side). */
export function VerdictBadge({ review, showDiff }: { review: VersusReview; showDiff?: boolean }) {
  return (
    <VerdictMark
      verdict={review.verdict}
      diff={review.diff_pct}
      low={review.low_pct}
      high={review.high_pct}
      q={review.q}
      runs={`${runsText(review.review_runs)} of the drive under review vs ${runsText(review.runs)}`}
      showDiff={showDiff}
    />
  );
}
