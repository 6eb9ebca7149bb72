import { formatDecimalBytes } from "../../lib/format-utils";

export interface EnvRow {
  label: string;
  value: string;
  /** Identifiers, paths and versions read better in a fixed-width font. */
  mono?: boolean;
}

export interface EnvSection {
  title: string;
  rows: EnvRow[];
  /** Shown instead of rows when the section has none. */
  empty?: string;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Binary GiB for memory, as the OS reports it: 16777216000 -> "15.6 GiB". */
export function formatBinaryBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A recorded value as text: null -> "—", yes/no, lists joined, nested values as JSON. */
export function envValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(envValue).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const bytesText = (v: unknown) =>
  typeof v === "number" ? `${formatDecimalBytes(v)} (${v.toLocaleString("en-US")} bytes)` : envValue(v);

interface RowDef {
  key: string;
  label: string;
  format?: (v: unknown) => string;
  mono?: boolean;
}

const DRIVE_ROWS: RowDef[] = [
  { key: "model", label: "Model" },
  { key: "serial", label: "Serial", mono: true },
  { key: "firmware", label: "Firmware", mono: true },
  { key: "size_bytes", label: "Capacity", format: bytesText },
  { key: "transport", label: "Transport" },
  { key: "link_speed", label: "Link speed" },
  { key: "logical_sector", label: "Logical sector", format: (v) => `${envValue(v)} B` },
  { key: "physical_sector", label: "Physical sector", format: (v) => `${envValue(v)} B` },
  { key: "rotational", label: "Rotational" },
  { key: "scheduler", label: "I/O scheduler", mono: true },
  { key: "discard_max_bytes", label: "Discard max", format: bytesText },
  { key: "path", label: "Target", mono: true },
  { key: "kind", label: "Kind" },
  { key: "backing_file", label: "Backing file", mono: true },
];

const TARGET_ROWS: RowDef[] = [
  { key: "registered", label: "Registered as", mono: true },
  { key: "resolved", label: "fio was given", mono: true },
  { key: "device", label: "Device number", mono: true },
  { key: "held", label: "Held for the run" },
];

const SMART_ROWS: RowDef[] = [
  { key: "passed", label: "Health check passed" },
  { key: "temperature_c", label: "Temperature", format: (v) => `${envValue(v)} °C` },
  { key: "power_on_hours", label: "Power-on hours" },
  { key: "data_written_bytes", label: "Data written", format: bytesText },
  { key: "firmware", label: "Firmware", mono: true },
];

const HOST_ROWS: RowDef[] = [
  { key: "hostname", label: "Host", mono: true },
  { key: "cpu", label: "CPU" },
  { key: "cpus", label: "CPUs" },
  {
    key: "memory_bytes",
    label: "Memory",
    format: (v) => (typeof v === "number" ? formatBinaryBytes(v) : envValue(v)),
  },
  { key: "board", label: "Board" },
  { key: "os", label: "OS" },
  { key: "kernel", label: "Kernel", mono: true },
  { key: "fio_version", label: "fio", mono: true },
];

function rows(source: Obj, defs: RowDef[]): EnvRow[] {
  return defs
    .filter((d) => d.key in source)
    .map((d) => ({
      label: d.label,
      value: source[d.key] === null ? "—" : (d.format ?? envValue)(source[d.key]),
      ...(d.mono ? { mono: true } : {}),
    }));
}

const NO_SMART = "Not recorded: files and loop devices have no SMART, or smartctl was missing.";

/**
 * The drive and host a run recorded (run.environment), as sections of label/value rows: the
 * drive's identity, SMART before and after, the host and fio. The full record (smartctl's
 * JSON, NVMe Identify Controller) stays in the raw view.
 */
/** One observation of host changes (worker/hostchanges.py): what it says, in a sentence. */
function hostChangeText(seen: unknown): string {
  if (!isObj(seen)) return "not recorded";
  const k = isObj(seen.kworker_priority) ? seen.kworker_priority : null;
  if (!k) return "none: kernel worker threads at their own priority";
  const by = Array.isArray(k.by) ? k.by.map(envValue).join(", ") : envValue(k.by);
  return `kworker priority raised: ${envValue(k.threads)} threads, nice ${envValue(k.from)} -> ${envValue(k.to)} (by ${by})`;
}

/** What was changed on the host while the run ran (a simulated drive's kworker priority),
 * seen at its start and at its end. */
export function hostChangeRows(changes: unknown): EnvRow[] {
  if (!isObj(changes)) return [];
  const rows: EnvRow[] = [{ label: "At start", value: hostChangeText(changes.start) }];
  if ("end" in changes) rows.push({ label: "At end", value: hostChangeText(changes.end) });
  return rows;
}

export function envSections(environment: unknown): EnvSection[] {
  const env = isObj(environment) ? environment : {};
  const sections: EnvSection[] = [];
  const drive = isObj(env.drive) ? env.drive : null;
  sections.push(
    drive
      ? { title: "Drive", rows: rows(drive, DRIVE_ROWS) }
      : { title: "Drive", rows: [], empty: "Recorded when the run starts." },
  );
  const target = isObj(env.target) ? env.target : null;
  if (target) {
    sections.push({
      title: "Safety interlock",
      rows: [
        ...rows(target, TARGET_ROWS),
        { label: "Checked", value: "before every write and at the end of every idle step" },
      ],
    });
  }
  if (drive) {
    const before = isObj(drive.smart) ? drive.smart : null;
    sections.push(
      before
        ? { title: "SMART before", rows: rows(before, SMART_ROWS) }
        : { title: "SMART before", rows: [], empty: NO_SMART },
    );
    const after = isObj(env.smart_after) ? env.smart_after : null;
    if (after) sections.push({ title: "SMART after", rows: rows(after, SMART_ROWS) });
  }
  const host = isObj(env.host) ? env.host : null;
  if (host) {
    const hostRows = rows(host, HOST_ROWS);
    if (typeof env.worker === "string") hostRows.push({ label: "Worker", value: env.worker, mono: true });
    sections.push({ title: "Host", rows: hostRows });
  }
  if (isObj(env.host_changes)) {
    sections.push({ title: "Host changes", rows: hostChangeRows(env.host_changes) });
  }
  const resumes = Array.isArray(env.resumes) ? env.resumes.filter(isObj) : [];
  if (resumes.length > 0) {
    sections.push({
      title: "Resumed",
      rows: resumes.map((r, i) => ({
        label: `#${i + 1} ${envValue(r.at)}`,
        value: `from step ${envValue(r.from_step_name)} after it was ${envValue(r.previous_status)}`,
      })),
    });
  }
  return sections;
}
