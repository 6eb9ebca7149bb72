import { clampFraction, formatPercent } from "../../lib/format-utils";
import type { BadgeTone } from "../badge/badge";
import "./progress-bar.css";

interface ProgressBarProps {
  /** 0..1 */
  value: number;
  tone?: BadgeTone;
  /** What is progressing, for screen readers ("Run 12", "Step seq-read"). */
  label: string;
  size?: "small" | "large";
  /** Show the percentage beside the bar. */
  showValue?: boolean;
}

export function ProgressBar({
  value,
  tone = "info",
  label,
  size = "small",
  showValue = true,
}: ProgressBarProps) {
  const fraction = clampFraction(value);
  const text = formatPercent(fraction);
  return (
    <div className={`progress progress--${size}`}>
      <div
        className="progress__track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(fraction * 100)}
        aria-valuetext={text}
      >
        <div
          className={`progress__fill progress__fill--${tone}`}
          style={{ transform: `scaleX(${fraction})` }}
        />
      </div>
      {showValue && <span className="progress__value">{text}</span>}
    </div>
  );
}
