import { createContext, useContext } from "react";
import { DEFAULT_ARTICLE_WIDTH } from "../../lib/export-utils";

/** A chart's rendering for export at an article width: the standalone SVG and its size. */
export interface RenderedChart {
  svg: string;
  width: number;
  height: number;
}

export interface ChartExporter {
  /** Download base name, e.g. "compare-consistency-linear". */
  name: string;
  /** The chart as an image; none for a table (the price table: CSV only). */
  render?: (articleWidth: number) => Promise<RenderedChart>;
  /** The chart's data as CSV, with its title, conditions and provenance; null: none. */
  csv?: () => string | null;
}

/**
 * Shared by the charts of a page: the article width exports are made for, and a registry
 * of every chart's exporter for the chart pack. Without a provider: 650 px, no pack.
 */
export interface ExportContextValue {
  articleWidth: number;
  register?: (id: string, exporter: ChartExporter) => () => void;
  /**
   * Draw each chart's plot only once it comes near the screen (a page of many charts: the
   * ones below are drawn as the reader scrolls to them, not all on first open). Exports, the
   * chart pack and printing draw every chart whatever this says. "wait": not yet, the page
   * above the charts is still loading (where they will be is not known).
   */
  drawWhenNear?: boolean | "wait";
}

export const ExportContext = createContext<ExportContextValue>({
  articleWidth: DEFAULT_ARTICLE_WIDTH,
});

export const useExportContext = () => useContext(ExportContext);
