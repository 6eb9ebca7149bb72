import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";
import { useDrives } from "../../api/drives/queries";
import { useArticle, useComparison } from "../../api/results/queries";
import {
  ArticleAppendix,
  ArticleTop,
} from "../../components/article-view/article-view";
import { ComparisonView } from "../../components/comparison-view/comparison-view";
import { ErrorBox } from "../../components/error-box/error-box";
import { simulatedMark } from "../../lib/export-utils";
import { formatFullDateTime } from "../../lib/format-utils";
import { driveStyles } from "../../lib/house-style";
import { driveName } from "../../lib/series-utils";
import { compareSearch, readCompareState } from "../compare/compare-utils";
import "../compare/compare-page.css";
import "./report-page.css";

/**
 * A printable review of one drive (`/report?drives=2`) or of a comparison
 * (`/report?drives=1,2,3&review=2`) in article order: the drives, the headline figures with
 * the drive under review's differences, the findings in words, then the charts of the tests
 * the drives ran (each with its conditions and provenance) and the price table; every other
 * result in an appendix, collapsed, printed only when asked. Laid out at an article's width;
 * the browser's "Save as PDF" gives a clean multi-page report (styles/print.css).
 */
export function ReportPage() {
  const [params] = useSearchParams();
  const search = params.toString();
  const state = useMemo(() => readCompareState(new URLSearchParams(search)), [search]);
  const { drives } = state;
  const review = state.review ?? (drives.length === 1 ? drives[0]! : null);
  const driveList = useDrives();
  const comparison = useComparison(drives, review);
  const article = useArticle(drives, review);
  const styles = useMemo(() => driveStyles(drives, review), [drives, review]);
  // In the order chosen (the address's), not the catalog's.
  const chosen = drives.flatMap((id) => (driveList.data ?? []).filter((d) => d.id === id));
  const names = chosen.map(driveName);
  const reviewedDrive = chosen.find((d) => d.id === review);
  const reviewed = useMemo(
    () => (reviewedDrive ? { id: reviewedDrive.id, name: driveName(reviewedDrive) } : null),
    [reviewedDrive],
  );
  const title =
    drives.length === 1
      ? `Drive report: ${names[0] ?? `drive ${drives[0]}`}`
      : `Comparison report: ${names.join(" vs ")}`;
  const simulated = simulatedMark(chosen.filter((d) => d.simulated).map(driveName));
  return (
    <div className="page report print-page" data-testid="report">
      <div className="report__tools no-print">
        <Link to={`/compare?${compareSearch(state)}`}>Back to Compare</Link>
        <button type="button" className="button" onClick={() => window.print()}>
          Print or save as PDF
        </button>
      </div>
      <header className="report__head print-section">
        <h1>{title}</h1>
        <p className="muted">
          drivelab report, {formatFullDateTime(new Date().toISOString())}; every figure comes
          from fio's own output of the runs named in each chart's small print.
        </p>
        {simulated && (
          <p className="report__simulated" data-testid="simulated-mark">
            {simulated}
          </p>
        )}
        {drives.length === 0 && <p>Choose drives on the Compare page first.</p>}
      </header>
      {article.error && <ErrorBox error={article.error} title="Could not load the review" />}
      {article.data && <ArticleTop article={article.data} />}
      {driveList.error && <ErrorBox error={driveList.error} title="Could not load the drives" />}
      {comparison.error && <ErrorBox error={comparison.error} title="Could not compare" />}
      {drives.length > 0 && (
        <ComparisonView
          drives={drives}
          styles={styles}
          fileBase="report"
          comparison={comparison.data}
          pending={comparison.isPending}
          reviewed={reviewed}
          underReview={review}
          readOnly
          onlyMeasured
          extra={state.metrics}
        />
      )}
      {article.data && <ArticleAppendix article={article.data} />}
    </div>
  );
}
