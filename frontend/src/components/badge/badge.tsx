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
