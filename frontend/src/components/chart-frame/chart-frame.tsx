import type { ReactNode } from "react";
import "./chart-frame.css";

interface ChartFrameProps {
  title: string;
  /** Axis units in words, shown beside the title ("MB/s against t (s)"). */
  subtitle?: string;
  /** Fixed plot height in px: the page does not jump while data arrives. */
  height: number;
  /** Shown over the plot area instead of the chart (no data yet, error). */
  overlay?: ReactNode;
  children: ReactNode;
}

/**
 * The one container every Recharts chart sits in: title, units, fixed size, empty state.
 * Export (SVG, PNG 2x, CSV) belongs here when the comparison charts arrive.
 */
export function ChartFrame({ title, subtitle, height, overlay, children }: ChartFrameProps) {
  return (
    <figure className="chart-frame">
      <figcaption className="chart-frame__caption">
        <span className="chart-frame__title">{title}</span>
        {subtitle && <span className="chart-frame__subtitle">{subtitle}</span>}
      </figcaption>
      <div className="chart-frame__plot" style={{ height }}>
        {overlay ? <div className="chart-frame__overlay">{overlay}</div> : children}
      </div>
    </figure>
  );
}
