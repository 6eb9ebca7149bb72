import type { Drive } from "../../api/types";
import { formatCapacity } from "../../lib/format-utils";

export interface BenchGroup {
  bench: Drive["bench"];
  drives: Drive[];
}

/** Drives grouped by bench (benches and drives by name), for an optgroup per bench. */
export function groupByBench(drives: readonly Drive[]): BenchGroup[] {
  const groups = new Map<number, BenchGroup>();
  for (const drive of drives) {
    const group = groups.get(drive.bench.id) ?? { bench: drive.bench, drives: [] };
    group.drives.push(drive);
    groups.set(drive.bench.id, group);
  }
  const label = (d: Drive) => `${d.model.vendor} ${d.model.model} ${d.serial}`;
  return [...groups.values()]
    .sort((a, b) => a.bench.name.localeCompare(b.bench.name))
    .map((g) => ({ ...g, drives: g.drives.slice().sort((a, b) => label(a).localeCompare(label(b))) }));
}

/** "free", "busy: run #12", "busy: run #12, 2 waiting". */
export function driveState(drive: Pick<Drive, "active_run_id" | "waiting_run_ids">): string {
  const waiting = drive.waiting_run_ids?.length ?? 0;
  if (drive.active_run_id === null && waiting === 0) return "free";
  const parts = [drive.active_run_id !== null ? `busy: run #${drive.active_run_id}` : "free"];
  if (waiting > 0) parts.push(`${waiting} waiting`);
  return parts.join(", ");
}

/** One line per drive in the picker: model, capacity, serial and whether it is free. */
export function driveOptionText(drive: Drive): string {
  const sim = drive.simulated ? " (simulated)" : "";
  return (
    `${drive.model.vendor} ${drive.model.model}${sim} · ${formatCapacity(drive.model.capacity_bytes)}` +
    ` · S/N ${drive.serial} · ${driveState(drive)}`
  );
}
