import type { ReactNode } from "react";
import "./badge.css";

export type BadgeTone = "ok" | "warn" | "danger" | "info" | "neutral";

interface BadgeProps {
  tone?: BadgeTone;
  title?: string;
  children: ReactNode;
}

export function Badge({ tone = "neutral", title, children }: BadgeProps) {
  return (
    <span className={`badge badge--${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A drive (or a run on one) that is a sparse file or loop device, not a real SSD. */
export function SimulatedBadge() {
  return (
    <Badge tone="warn" title="A sparse file or loop device, not a real SSD">
      simulated
    </Badge>
  );
}
