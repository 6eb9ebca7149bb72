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

/** A drive (or a run on one) that is a sparse file or loop device, not a real SSD; or, with
 * `emulated`, a virtual bench's QEMU controller (functional truth, not a product's speed). */
export function SimulatedBadge({ emulated = false }: { emulated?: boolean }) {
  return emulated ? (
    <Badge tone="warn" title="QEMU's emulated controller in a virtual bench, not a real SSD">
      emulated
    </Badge>
  ) : (
    <Badge tone="warn" title="A sparse file or loop device, not a real SSD">
      simulated
    </Badge>
  );
}

/** A drive (or a run on one) whose model is under embargo: viewers and shared links do not
 * see it until the embargo ends. */
export function EmbargoBadge() {
  return (
    <Badge tone="danger" title="Under embargo: hidden from viewers and shared links">
      embargoed
    </Badge>
  );
}
