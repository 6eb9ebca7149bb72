import type { Bench, Drive, RunSummary } from "../../api/types";
import { formatBinaryBytes } from "../env-info/env-info-utils";
import { Badge } from "../badge/badge";
import { DrivesTable, type QueueActions } from "../drives-table/drives-table";
import { TimeText } from "../time-text/time-text";
import "./bench-card.css";

interface BenchCardProps {
  bench: Bench;
  drives: Drive[];
  runs: ReadonlyMap<number, RunSummary>;
  queue: QueueActions;
}

const text = (v: unknown): string | null =>
  typeof v === "string" && v ? v : typeof v === "number" ? String(v) : null;

/** One lab machine: online or not, what it is, and its drives with their runs and queues. */
export function BenchCard({ bench, drives, runs, queue }: BenchCardProps) {
  const info = bench.host_info ?? {};
  const memory = typeof info.memory_bytes === "number" ? formatBinaryBytes(info.memory_bytes) : null;
  const cpus = text(info.cpus);
  const facts: [string, string | null, boolean?][] = [
    ["Host", text(info.hostname), true],
    ["CPU", [text(info.cpu), cpus ? `${cpus} threads` : null].filter(Boolean).join(" · ") || null],
    ["Memory", memory],
    ["OS", [text(info.os), text(info.kernel)].filter(Boolean).join(" · ") || null],
    ["fio", text(info.fio_version), true],
  ];
  return (
    <section className="section bench-card" aria-labelledby={`bench-${bench.id}`}>
      <div className="section__header bench-card__header">
        <h2 id={`bench-${bench.id}`} className="bench-card__title">
          <span
            className={`bench-card__dot bench-card__dot--${bench.online ? "on" : "off"}`}
            aria-hidden="true"
          />
          Bench {bench.name}
          <Badge tone={bench.online ? "ok" : "warn"}>{bench.online ? "online" : "offline"}</Badge>
        </h2>
        <span className="muted">
          last heard <TimeText iso={bench.last_seen_at} />
        </span>
      </div>
      <dl className="facts bench-card__facts">
        {facts.map(([label, value, mono]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd className={mono ? "mono" : undefined}>{value ?? "—"}</dd>
          </div>
        ))}
      </dl>
      <div className="section__body section__body--flush">
        <DrivesTable drives={drives} loading={false} runs={runs} queue={queue} withBench={false} />
      </div>
    </section>
  );
}
