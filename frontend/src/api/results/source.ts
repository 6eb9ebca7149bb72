import { createContext, useContext } from "react";

/**
 * Where a comparison's charts get their data: the signed-in api (`/compare/...`), or a shared
 * link's public endpoints (`/shares/TOKEN/...`), so the Compare, Shared and Report pages draw
 * the same charts from one set of components.
 */
export interface CompareSource {
  shareToken: string | null;
}

export const CompareSourceContext = createContext<CompareSource>({ shareToken: null });

export const useCompareSource = () => useContext(CompareSourceContext);

/** The path of a comparison endpoint for this source: "series" -> /compare/series or
 * /shares/TOKEN/series (the shared one knows its drives). */
export function sourcePath(
  source: CompareSource,
  what: "charts" | "series" | "value" | "prices" | "pts" | "latency" | "latency/steps" | "qd-sweep",
): string {
  if (source.shareToken) return `/shares/${encodeURIComponent(source.shareToken)}/${what}`;
  return what === "prices" ? "/prices/table" : `/compare/${what}`;
}
