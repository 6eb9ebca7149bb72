import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { useDrives } from "../../api/drives/queries";
import { useComparison } from "../../api/results/queries";
import { useCreateShare, type NewShare } from "../../api/shares/queries";
import { MetricBars } from "../../components/bar-chart/bar-chart";
import { barGroups, headlineMetrics, metricTitle } from "../../components/bar-chart/bar-chart-utils";
import { buildChartPack } from "../../components/chart-frame/chart-pack";
import { ExportContext, type ChartExporter } from "../../components/chart-frame/export-context";
import { ConsistencyScatter } from "../../components/consistency-scatter/consistency-scatter";
import { DrivePicker } from "../../components/drive-picker/drive-picker";
import { ErrorBox } from "../../components/error-box/error-box";
import { HdTachChart } from "../../components/hdtach-chart/hdtach-chart";
import { PriceTableSection } from "../../components/price-table/price-table";
import { PtsCompare } from "../../components/pts-compare/pts-compare";
import { StallTimeline } from "../../components/stall-timeline/stall-timeline";
import { TransferCurves } from "../../components/transfer-curves/transfer-curves";
import { downloadBlob } from "../../lib/export-dom";
import { ARTICLE_WIDTHS, DEFAULT_ARTICLE_WIDTH } from "../../lib/export-utils";
import { driveStyles } from "../../lib/house-style";
import { shortLabel } from "../../lib/series-utils";
import { compareSearch, readCompareState, shareTitle } from "./compare-utils";
import "./compare-page.css";

const FILE_BASE = "compare";

function SharePanel({ share }: { share: NewShare }) {
  const [copied, setCopied] = useState(false);
  const url = share.page_url;
  return (
    <div className="share-result" role="status">
      Published read-only:{" "}
      <input readOnly value={url} aria-label="Shared link" onFocus={(e) => e.target.select()} />
      <button
        type="button"
        className="button"
        onClick={() =>
          void navigator.clipboard?.writeText(url).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? "Copied" : "Copy link"}
      </button>
      <a href={url} target="_blank" rel="noreferrer">
        Open
      </a>
    </div>
  );
}

export function ComparePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  // The choice lives in the URL; a local copy keeps the checkboxes responsive while the
  // router applies the new address.
  const search = params.toString();
  const [state, setLocal] = useState(() => readCompareState(params));
  useEffect(() => {
    setLocal((current) => {
      const fromUrl = readCompareState(new URLSearchParams(search));
      return compareSearch(fromUrl) === compareSearch(current) ? current : fromUrl;
    });
  }, [search]);
  const { drives, review } = state;
  const [articleWidth, setArticleWidth] = useState<number>(DEFAULT_ARTICLE_WIDTH);
  const [extra, setExtra] = useState<string[]>([]);
  const [valueMetric, setValueMetric] = useState<string | null>(null);
  const [pack, setPack] = useState<string | null>(null);
  const registry = useRef(new Map<string, ChartExporter>());
  const register = useCallback((id: string, exporter: ChartExporter) => {
    registry.current.set(id, exporter);
    return () => void registry.current.delete(id);
  }, []);
  const exportContext = useMemo(() => ({ articleWidth, register }), [articleWidth, register]);

  const me = useMe();
  const driveList = useDrives();
  const comparison = useComparison(drives, review);
  const share = useCreateShare();
  const styles = useMemo(() => driveStyles(drives, review), [drives, review]);

  const setState = (next: number[], nextReview: number | null) => {
    const chosen = { drives: next, review: nextReview };
    setLocal(chosen);
    const query = compareSearch(chosen);
    void navigate({ search: query ? `?${query}` : "" }, { replace: true });
    share.reset();
  };

  const allMetrics = useMemo(
    () => comparison.data?.metrics.map((m) => m.metric) ?? [],
    [comparison.data],
  );
  const wanted = useMemo(
    () => Array.from(new Set([...headlineMetrics(allMetrics), ...extra])),
    [allMetrics, extra],
  );
  const groups = useMemo(
    () => barGroups(comparison.data?.metrics ?? [], wanted),
    [comparison.data, wanted],
  );
  const chosenDrives = (driveList.data ?? []).filter((d) => drives.includes(d.id));
  const labels = chosenDrives.map((d) => shortLabel(d.label));
  const perDollar = valueMetric ?? wanted[0] ?? allMetrics[0] ?? null;

  const downloadPack = async () => {
    const exporters = Array.from(registry.current.values());
    setPack(`Drawing 0 of ${exporters.length} charts…`);
    try {
      const blob = await buildChartPack(exporters, articleWidth, (done, total) =>
        setPack(`Drawing ${done} of ${total} charts…`),
      );
      downloadBlob(blob, `${FILE_BASE}-chart-pack-${articleWidth}.zip`);
      setPack(null);
    } catch (err) {
      setPack(`Chart pack failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  return (
    <ExportContext.Provider value={exportContext}>
      <div className="page">
        <div className="page-header">
          <div className="page-header__title">
            <h1>Compare drives</h1>
          </div>
          {drives.length >= 2 && (
            <Link
              className="button"
              to={`/compare/pair?a=${review ?? drives[0]}&b=${drives.find((d) => d !== (review ?? drives[0]))}`}
            >
              Side by side
            </Link>
          )}
        </div>

        {driveList.error ? (
          <ErrorBox error={driveList.error} title="Could not load the drives" />
        ) : (
          <DrivePicker
            drives={driveList.data ?? []}
            chosen={drives}
            underReview={review}
            styles={styles}
            onChange={setState}
          />
        )}

        <div className="compare-toolbar">
          <label className="chart-control">
            Article width{" "}
            <select
              value={articleWidth}
              onChange={(e) => setArticleWidth(Number(e.target.value))}
              aria-label="Article width"
            >
              {ARTICLE_WIDTHS.map((w) => (
                <option key={w} value={w}>
                  {w} px (PNG {w * 2} px)
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="button"
            disabled={drives.length === 0 || pack !== null && pack.startsWith("Drawing")}
            onClick={() => void downloadPack()}
          >
            Download chart pack
          </button>
          {pack && <span className="muted" role="status">{pack}</span>}
          <span className="compare-toolbar__spacer" />
          {canWrite(me.data) && (
            <button
              type="button"
              className="button"
              disabled={drives.length === 0 || share.isPending}
              onClick={() =>
                share.mutate({
                  drives,
                  under_review: review,
                  title: shareTitle(labels.length ? labels : drives.map(String)),
                })
              }
            >
              Publish read-only link
            </button>
          )}
        </div>
        {share.error && <ErrorBox error={share.error} title="Could not publish" />}
        {share.data && <SharePanel share={share.data} />}

        {comparison.error && <ErrorBox error={comparison.error} title="Could not compare" />}

        {drives.length > 0 && (
          <>
            <section aria-label="Results">
              <div className="compare-toolbar">
                <h2>Results, best first</h2>
                <span className="compare-toolbar__spacer" />
                <label className="chart-control">
                  Add a metric{" "}
                  <select
                    value=""
                    onChange={(e) => e.target.value && setExtra([...extra, e.target.value])}
                    disabled={allMetrics.length === 0}
                  >
                    <option value="">choose…</option>
                    {allMetrics
                      .filter((m) => !wanted.includes(m))
                      .map((m) => (
                        <option key={m} value={m}>
                          {m}
                        </option>
                      ))}
                  </select>
                </label>
              </div>
              {comparison.isPending ? (
                <p className="muted" style={{ minHeight: 120 }}>
                  Loading results…
                </p>
              ) : groups.length === 0 ? (
                <p className="muted">These drives have no results in common yet.</p>
              ) : (
                <div className="compare-grid">
                  {groups.map((g) => (
                    <div className="compare-card" key={g.key}>
                      <MetricBars group={g} styles={styles} fileBase={FILE_BASE} />
                      {g.warnings.length > 0 && (
                        <ul className="compare-warnings" aria-label={`Warnings for ${metricTitle(g.key)}`}>
                          {g.warnings.map((w) => (
                            <li key={w}>{w}</li>
                          ))}
                        </ul>
                      )}
                    </div>
                  ))}
                </div>
              )}
            </section>

            <div className="compare-card">
              <HdTachChart drives={drives} styles={styles} fileBase={FILE_BASE} />
            </div>
            <div className="compare-card">
              <ConsistencyScatter drives={drives} styles={styles} fileBase={FILE_BASE} />
            </div>
            <div className="compare-card">
              <TransferCurves drives={drives} styles={styles} fileBase={FILE_BASE} />
            </div>
            <div className="compare-card">
              <StallTimeline drives={drives} styles={styles} fileBase={FILE_BASE} />
            </div>
            <PtsCompare driveIds={drives} underReview={review} />
            <div className="compare-card">
              <PriceTableSection
                drives={drives}
                metrics={allMetrics}
                metric={perDollar}
                onMetric={setValueMetric}
                fileBase={FILE_BASE}
              />
            </div>
          </>
        )}
      </div>
    </ExportContext.Provider>
  );
}
