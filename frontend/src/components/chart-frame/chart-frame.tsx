import { useCallback, useEffect, useId, useRef, useState, type ReactNode, type RefObject } from "react";
import { createPortal, flushSync } from "react-dom";
import {
  buildSvgDocument,
  exportBodyWidth,
  exportFileName,
  svgLayout,
  type ExportMeta,
  type LegendItem,
} from "../../lib/export-utils";
import { capturePlot, downloadBlob, downloadText, svgToPng } from "../../lib/export-dom";
import { useExportContext, type RenderedChart } from "./export-context";
import "./chart-frame.css";

/** What the export of a chart needs besides the drawing. */
export interface ChartExportSpec extends Partial<ExportMeta> {
  /** Download name parts: ["compare", "consistency", "linear"] -> compare-consistency-linear.svg */
  fileName: string[];
  /** The chart's data as CSV text (header + rows). */
  csv?: () => string;
}

interface ChartFrameProps {
  title: string;
  /** Axis units in words, shown beside the title ("MB/s against t (s)"). */
  subtitle?: string;
  /** Fixed plot height in px: the page does not jump while data arrives. */
  height: number;
  /** Shown over the plot area instead of the chart (no data yet, error). */
  overlay?: ReactNode;
  children: ReactNode;
  /** `data-chart` of the figure, for tests and the browser benchmark. */
  chartId?: string;
  /** Export as SVG, PNG (2x the article width) and CSV; legend shown above the plot. */
  exportAs?: ChartExportSpec;
  /** Controls shown in the caption row (scale, zoom). */
  controls?: ReactNode;
  /** A line under the plot, on screen and in print (how sure the chart's differences are). */
  note?: string;
}

interface OffscreenRequest {
  width: number;
  resolve: (plot: HTMLElement) => void;
}

/** How far from the screen a deferred plot is drawn: a screen's height ahead, so that one
 * reading down the page finds it drawn. */
const NEAR_MARGIN = "100% 0px";

/**
 * Whether the plot in `ref` is to be drawn: always when `deferred` is false; else once it
 * has come within NEAR_MARGIN of the screen after the page above it has loaded (`deferred`
 * no longer "wait"), or the page is printed (then at once, before the print is laid out),
 * and from then on.
 */
function useDrawn(ref: RefObject<HTMLElement | null>, deferred: boolean | "wait"): boolean {
  const [near, setNear] = useState(false);
  const drawn = !deferred || near;
  useEffect(() => {
    if (drawn) return;
    const print = () => flushSync(() => setNear(true));
    window.addEventListener("beforeprint", print);
    const el = ref.current;
    let observer: IntersectionObserver | null = null;
    if (deferred !== "wait" && el) {
      if (typeof IntersectionObserver === "undefined") {
        setNear(true);
      } else {
        observer = new IntersectionObserver(
          (entries) => {
            if (entries.some((e) => e.isIntersecting)) setNear(true);
          },
          { rootMargin: NEAR_MARGIN },
        );
        observer.observe(el);
      }
    }
    return () => {
      observer?.disconnect();
      window.removeEventListener("beforeprint", print);
    };
  }, [drawn, deferred, ref]);
  return drawn;
}

/** Waits until the charts in `plot` have drawn at the plot's width (resize observers fired). */
function settled(plot: HTMLElement): Promise<HTMLElement> {
  return new Promise((resolve) => {
    const started = performance.now();
    let last = "";
    let stable = 0;
    const tick = () => {
      const svgs = Array.from(plot.querySelectorAll("svg"));
      const sig = svgs.map((s) => `${s.getAttribute("width")}x${s.getAttribute("height")}`).join();
      stable = sig === last && svgs.length > 0 ? stable + 1 : 0;
      last = sig;
      if (stable >= 3 || performance.now() - started > 2000) resolve(plot);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

function Legend({ items }: { items: LegendItem[] }) {
  return (
    <ul className="chart-frame__legend" aria-label="Legend">
      {items.map((item) => (
        <li
          key={item.label}
          className={item.highlight ? "chart-frame__legend-item--highlight" : undefined}
        >
          {item.dashed ? (
            <span
              className="chart-frame__swatch chart-frame__swatch--dashed"
              style={{ borderTopColor: item.color }}
            />
          ) : (
            <span
              className="chart-frame__swatch"
              style={{ background: item.color, opacity: item.opacity ?? 1 }}
            />
          )}
          {item.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * The one container every chart sits in: title, units, fixed size, empty state, and the
 * export for articles. The export draws the chart again off screen at the article width
 * (fonts stay their size), wraps it in the house style with title, test conditions, legend
 * and provenance, and downloads SVG, PNG at 2x, or the data as CSV.
 */
export function ChartFrame({
  title,
  subtitle,
  height,
  overlay,
  children,
  chartId,
  exportAs,
  controls,
  note,
}: ChartFrameProps) {
  const { articleWidth, register, drawWhenNear } = useExportContext();
  const plotRef = useRef<HTMLDivElement | null>(null);
  const drawn = useDrawn(plotRef, drawWhenNear ?? false);
  const [offscreen, setOffscreen] = useState<OffscreenRequest | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const offscreenRef = useRef<HTMLDivElement | null>(null);
  const specRef = useRef(exportAs);
  specRef.current = exportAs;
  const titleRef = useRef(title);
  titleRef.current = title;
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const id = useId();

  useEffect(() => {
    if (offscreen && offscreenRef.current) {
      const plot = offscreenRef.current;
      void settled(plot).then(offscreen.resolve);
    }
  }, [offscreen]);

  const render = useCallback((width: number): Promise<RenderedChart> => {
    // One off-screen drawing at a time (the chart pack asks every chart in turn).
    const job = queue.current.then(async () => {
      const spec = specRef.current;
      const meta: ExportMeta = {
        title: spec?.title ?? titleRef.current,
        conditions: spec?.conditions,
        provenance: spec?.provenance,
        legend: spec?.legend,
        simulated: spec?.simulated,
        warnings: spec?.warnings,
      };
      const bodyWidth = exportBodyWidth(width);
      const plot = await new Promise<HTMLElement>((resolve) =>
        setOffscreen({ width: bodyWidth, resolve }),
      );
      try {
        const body = capturePlot(plot);
        const svg = buildSvgDocument(meta, body.markup, body.width, body.height);
        const layout = svgLayout(meta, body.width, body.height);
        return { svg, width: layout.width, height: layout.height };
      } finally {
        setOffscreen(null);
      }
    });
    queue.current = job.catch(() => undefined);
    return job;
  }, []);

  const exportName = exportAs ? exportFileName(exportAs.fileName, "x").slice(0, -2) : null;
  useEffect(() => {
    if (!register || !exportName) return;
    return register(id, {
      name: exportName,
      render,
      csv: () => specRef.current?.csv?.() ?? null,
    });
  }, [register, exportName, id, render]);

  const run = async (kind: "svg" | "png" | "csv") => {
    if (!exportAs) return;
    setBusy(true);
    setError(null);
    try {
      if (kind === "csv") {
        const text = exportAs.csv?.() ?? "";
        downloadText(text, exportFileName(exportAs.fileName, "csv"), "text/csv");
        return;
      }
      const out = await render(articleWidth);
      if (kind === "svg") {
        downloadText(out.svg, exportFileName(exportAs.fileName, "svg"), "image/svg+xml");
      } else {
        const png = await svgToPng(out.svg, out.width, out.height);
        downloadBlob(png, exportFileName(exportAs.fileName, "png"));
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const canExport = Boolean(exportAs) && !overlay;
  return (
    <figure
      className={overlay ? "chart-frame chart-frame--empty" : "chart-frame"}
      data-chart={chartId}
    >
      <figcaption className="chart-frame__caption">
        <span className="chart-frame__title">{title}</span>
        {subtitle && <span className="chart-frame__subtitle">{subtitle}</span>}
        {(controls || exportAs) && (
          <span className="chart-frame__tools no-print">
            {controls}
            {exportAs && (
              <span className="chart-frame__export" role="group" aria-label={`Export ${title}`}>
                {(["svg", "png", "csv"] as const).map((kind) => (
                  <button
                    key={kind}
                    type="button"
                    className="chart-frame__export-button"
                    disabled={!canExport || busy || (kind === "csv" && !exportAs.csv)}
                    onClick={() => void run(kind)}
                    title={
                      kind === "png"
                        ? `PNG at 2x for a ${articleWidth} px article column`
                        : kind === "svg"
                          ? `SVG for a ${articleWidth} px article column`
                          : "The chart's data as CSV"
                    }
                  >
                    {kind.toUpperCase()}
                  </button>
                ))}
              </span>
            )}
          </span>
        )}
      </figcaption>
      {exportAs?.legend && exportAs.legend.length > 0 && <Legend items={exportAs.legend} />}
      {error && (
        <p className="chart-frame__error" role="alert">
          Export failed: {error}
        </p>
      )}
      {exportAs?.simulated && !overlay && (
        <p className="chart-frame__simulated" data-testid="simulated-mark">
          {exportAs.simulated}
        </p>
      )}
      <div
        className="chart-frame__plot"
        style={{ height }}
        ref={plotRef}
        data-drawn={overlay || drawn ? undefined : "later"}
      >
        {overlay ? <div className="chart-frame__overlay">{overlay}</div> : drawn && children}
      </div>
      {note && !overlay && (
        <p className="chart-frame__note" data-testid="chart-note">
          {note}
        </p>
      )}
      {exportAs?.warnings && exportAs.warnings.length > 0 && !overlay && (
        <ul className="compare-warnings" aria-label={`Warnings for ${title}`}>
          {exportAs.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {exportAs?.conditions && !overlay && (
        <p className="chart-frame__conditions print-only" data-testid="chart-conditions">
          {exportAs.conditions}
        </p>
      )}
      {exportAs?.provenance && !overlay && (
        <p className="chart-frame__conditions print-only" data-testid="chart-provenance">
          {exportAs.provenance}
        </p>
      )}
      {offscreen &&
        createPortal(
          <div className="chart-frame__offscreen" aria-hidden="true">
            <div
              ref={offscreenRef}
              className="chart-frame__plot"
              style={{ width: offscreen.width, height }}
            >
              {children}
            </div>
          </div>,
          document.body,
        )}
    </figure>
  );
}
