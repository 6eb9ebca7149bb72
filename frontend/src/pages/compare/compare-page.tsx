import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { useDrives } from "../../api/drives/queries";
import { useArticle, useComparison } from "../../api/results/queries";
import { useCreateShare, type NewShare } from "../../api/shares/queries";
import { buildChartPack } from "../../components/chart-frame/chart-pack";
import { ExportContext, type ChartExporter } from "../../components/chart-frame/export-context";
import { ArticleTop } from "../../components/article-view/article-view";
import { HEADLINE_ROWS, matchesRows, shownMetrics } from "../../components/bar-chart/bar-chart-utils";
import { SLC_ROWS } from "../../components/slc-recovery/slc-utils";
import { BURST_ROWS } from "../../components/burst-chart/bursts-utils";
import { FILE_COPY_ROWS } from "../../components/file-copy/file-copy-utils";
import { DESKTOP_ROWS } from "../../components/desktop-compare/desktop-compare-utils";
import { FULL_DRIVE_ROWS } from "../../components/full-drive/full-drive-utils";
import { ComparisonView } from "../../components/comparison-view/comparison-view";
import { DrivePicker } from "../../components/drive-picker/drive-picker";
import { ErrorBox } from "../../components/error-box/error-box";
import { downloadBlob } from "../../lib/export-dom";
import { ARTICLE_WIDTHS, DEFAULT_ARTICLE_WIDTH } from "../../lib/export-utils";
import { driveStyles } from "../../lib/house-style";
import { driveName } from "../../lib/series-utils";
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
  const [pack, setPack] = useState<string | null>(null);
  const registry = useRef(new Map<string, ChartExporter>());
  const register = useCallback((id: string, exporter: ChartExporter) => {
    registry.current.set(id, exporter);
    return () => void registry.current.delete(id);
  }, []);

  const extra = useMemo(() => state.metrics ?? [], [state.metrics]);
  const me = useMe();
  const driveList = useDrives();
  // The rows of the bars drawn only (the headline metrics, the added ones, and the first
  // performance figures when there is no headline one): the other metrics by name.
  const [firstRows, setFirstRows] = useState<string[]>([]);
  const rows = useMemo(
    () => [
      ...HEADLINE_ROWS,
      ...SLC_ROWS,
      ...BURST_ROWS,
      ...FILE_COPY_ROWS,
      ...DESKTOP_ROWS,
      ...FULL_DRIVE_ROWS,
      ...extra,
      ...firstRows,
    ],
    [extra, firstRows],
  );
  const comparison = useComparison(drives, review, rows);
  const listed = comparison.data?.metrics;
  useEffect(() => {
    const missing = shownMetrics(listed ?? [], []).filter((m) => !rows.some((p) => matchesRows(m, p)));
    if (missing.length > 0) setFirstRows((had) => Array.from(new Set([...had, ...missing])));
  }, [listed, rows]);
  const article = useArticle(drives, review);
  // About twenty charts below the headline table and findings: each is drawn as the reader
  // scrolls near it, not all on first open (drawing them all took ~600 ms of two cores);
  // none until what is above them has loaded, so that where they are is known.
  const above = driveList.isPending || comparison.isPending || article.isPending;
  const exportContext = useMemo(
    () => ({ articleWidth, register, drawWhenNear: above ? ("wait" as const) : true }),
    [articleWidth, register, above],
  );
  const share = useCreateShare();
  const styles = useMemo(() => driveStyles(drives, review), [drives, review]);

  const setState = (next: number[], nextReview: number | null, metrics: string[] = extra) => {
    const chosen = { drives: next, review: nextReview, metrics };
    setLocal(chosen);
    const query = compareSearch(chosen);
    void navigate({ search: query ? `?${query}` : "" }, { replace: true });
    share.reset();
  };

  const chosenDrives = (driveList.data ?? []).filter((d) => drives.includes(d.id));
  const labels = chosenDrives.map(driveName);
  const reviewedDrive = chosenDrives.find((d) => d.id === review);
  const reviewed = useMemo(
    () => (reviewedDrive ? { id: reviewedDrive.id, name: driveName(reviewedDrive) } : null),
    [reviewedDrive],
  );

  const [packMs, setPackMs] = useState<number | null>(null);
  const [packDrawnMs, setPackDrawnMs] = useState<number | null>(null);
  const downloadPack = async () => {
    const exporters = Array.from(registry.current.values());
    setPack(`Drawing 0 of ${exporters.length} charts…`);
    try {
      const started = performance.now();
      const timings: { drawn?: number } = {};
      const blob = await buildChartPack(
        exporters,
        articleWidth,
        (done, total) => setPack(`Drawing ${done} of ${total} charts…`),
        timings,
      );
      // How long the pack took, for the browser benchmark (tests/bench/bench_chart_pack.py).
      setPackMs(Math.round(performance.now() - started));
      setPackDrawnMs(timings.drawn ?? null);
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
          {drives.length > 0 && (
            <Link className="button" to={`/report?${compareSearch(state)}`}>
              Report
            </Link>
          )}
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
            data-pack-ms={packMs ?? undefined}
            data-pack-drawn-ms={packDrawnMs ?? undefined}
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
                  added_metrics: extra,
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
        {article.error && <ErrorBox error={article.error} title="Could not load the review" />}
        {drives.length > 0 && article.data && <ArticleTop article={article.data} />}

        {drives.length > 0 && (
          <ComparisonView
            drives={drives}
            styles={styles}
            fileBase={FILE_BASE}
            comparison={comparison.data}
            pending={comparison.isPending}
            reviewed={reviewed}
            underReview={review}
            readOnly={false}
            extra={extra}
            onAdd={(m) => setState(drives, review, [...extra, m])}
          />
        )}
      </div>
    </ExportContext.Provider>
  );
}
