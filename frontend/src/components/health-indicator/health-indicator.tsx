import { useEffect, useId, useRef, useState } from "react";
import { useHealth } from "../../api/health/queries";
import type { HealthCheck } from "../../api/types";
import { errorMessage } from "../error-box/error-box";
import "./health-indicator.css";

type Level = "ok" | "degraded" | "down" | "unknown";

const LABELS: Record<Level, string> = {
  ok: "All systems ok",
  degraded: "Degraded",
  down: "Api unreachable",
  unknown: "Checking…",
};

function Check({ name, check }: { name: string; check: HealthCheck | undefined }) {
  const level: Level = !check ? "unknown" : check.ok ? "ok" : "down";
  return (
    <li className="health__check">
      <span className={`health__dot health__dot--${level}`} aria-hidden="true" />
      <span className="health__name">{name}</span>
      <span className="health__detail">
        {check ? check.detail || (check.ok ? "ok" : "down") : "—"}
      </span>
    </li>
  );
}

function serviceLevel(check: HealthCheck | undefined, overall: Level): Level {
  if (!check) return overall === "down" ? "down" : "unknown";
  return check.ok ? "ok" : "down";
}

/** Header indicator from GET /api/health; the button opens the per-service details. */
export function HealthIndicator() {
  const health = useHealth();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);

  // Close on a click anywhere else, like any popover.
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  const data = health.data;
  const level: Level = health.isError
    ? "down"
    : !data
      ? "unknown"
      : data.status === "ok"
        ? "ok"
        : "degraded";

  return (
    <div className="health" ref={rootRef} onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
      <button
        type="button"
        className={`health__button health__button--${level}`}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="health__summary" aria-hidden="true">
          <span className="health__service">
            <span className={`health__dot health__dot--${serviceLevel(data?.database, level)}`} />
            db
          </span>
          <span className="health__service">
            <span className={`health__dot health__dot--${serviceLevel(data?.broker, level)}`} />
            broker
          </span>
        </span>
        <span className="visually-hidden">{LABELS[level]}: show details</span>
      </button>
      {open && (
        <div className="health__panel" id={panelId} role="region" aria-label="Service health">
          <div className="health__panel-title">
            {LABELS[level]}
            {data && <span className="muted"> · drivelab {data.version}</span>}
          </div>
          {health.isError ? (
            <p className="health__error">{errorMessage(health.error)}</p>
          ) : (
            <ul className="health__checks">
              <Check name="Database" check={data?.database} />
              <Check name="Broker" check={data?.broker} />
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
