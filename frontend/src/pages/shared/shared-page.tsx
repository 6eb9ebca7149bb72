import { useMemo } from "react";
import { useParams } from "react-router";
import { ApiError } from "../../api/client";
import { CompareSourceContext } from "../../api/results/source";
import { useSharedComparison } from "../../api/shares/queries";
import { AllResults, ComparisonView } from "../../components/comparison-view/comparison-view";
import { ErrorBox } from "../../components/error-box/error-box";
import { simulatedMark } from "../../lib/export-utils";
import { driveStyles } from "../../lib/house-style";
import { driveName } from "../../lib/series-utils";
import "../compare/compare-page.css";
import "./shared-page.css";

/** A published comparison, read-only, for anyone with the link: no sign-in. Every chart of
 * the comparison (bars, HD Tach, consistency, transfer size, stalls) and the price table,
 * drawn from the link's own public endpoints. */
export function SharedPage() {
  const { token = "" } = useParams();
  const shared = useSharedComparison(token);
  const data = shared.data;
  const driveIds = useMemo(() => (data?.drives ?? []).map((d) => d.id), [data]);
  const styles = useMemo(
    () => driveStyles(driveIds, data?.under_review ?? null),
    [driveIds, data?.under_review],
  );
  const source = useMemo(() => ({ shareToken: token }), [token]);
  const reviewedDrive = data?.drives?.find((d) => d.id === data.under_review);
  const reviewed = useMemo(
    () => (reviewedDrive ? { id: reviewedDrive.id, name: driveName(reviewedDrive) } : null),
    [reviewedDrive],
  );
  const simulated = simulatedMark((data?.drives ?? []).filter((d) => d.simulated).map(driveName));
  const gone = shared.error instanceof ApiError && shared.error.status === 404;
  return (
    <CompareSourceContext.Provider value={source}>
      <div className="page">
        {shared.isPending && <p className="muted">Loading the shared comparison…</p>}
        {gone && (
          <div className="shared-page__banner" role="alert">
            <h1>This link no longer works</h1>
            <p>
              The comparison was unpublished (revoked) or the link is mistyped. Ask the person
              who sent it for a new one.
            </p>
          </div>
        )}
        {shared.error && !gone && <ErrorBox error={shared.error} title="Could not load" />}
        {data && (
          <>
            <div>
              <h1>{data.title}</h1>
              <p className="shared-page__meta">
                Read-only comparison published {data.created_at.slice(0, 10)}; the numbers are
                computed afresh from the stored fio results each time this page opens.
              </p>
              {simulated && (
                <p className="shared-page__simulated" data-testid="simulated-mark">
                  {simulated}
                </p>
              )}
            </div>
            <ComparisonView
              drives={driveIds}
              styles={styles}
              fileBase="shared"
              comparison={data.comparison}
              pending={false}
              reviewed={reviewed}
              underReview={data.under_review ?? null}
              extra={data.added_metrics}
              readOnly
            />
            {data.comparison.metrics.length > 0 && (
              <AllResults
                comparison={data.comparison}
                drives={(data.drives ?? []).map((d) => ({ id: d.id, name: driveName(d) }))}
              />
            )}
          </>
        )}
      </div>
    </CompareSourceContext.Provider>
  );
}
