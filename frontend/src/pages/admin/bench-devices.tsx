import { useState, type FormEvent } from "react";
import {
  useAddBench,
  useBenchDevices,
  useBenches,
  type BenchDevice,
} from "../../api/benches/queries";
import { useCreateDrive, useDrives } from "../../api/drives/queries";
import type { BenchToken, Drive } from "../../api/types";
import { Badge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { TableStateRow } from "../../components/table-states/table-states";
import { formatCapacity } from "../../lib/format-utils";
import { registeredAs } from "./admin-utils";
import { CopyLine } from "./copy-line";

function RegisterForm({
  bench,
  device,
  onDone,
}: {
  bench: string;
  device: BenchDevice;
  onDone: () => void;
}) {
  const create = useCreateDrive();
  const [vendor, setVendor] = useState("");
  const [model, setModel] = useState(device.model ?? "");
  const [shortName, setShortName] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      {
        bench,
        target_path: device.path,
        serial: device.serial,
        vendor: vendor.trim(),
        model: model.trim(),
        capacity_bytes: device.size_bytes,
        firmware: device.firmware,
        interface: device.transport,
        logical_sector: device.logical_sector,
        // simulated/emulated: the api takes it from the bench's report
        short_name: shortName.trim() || null,
      },
      { onSuccess: onDone },
    );
  };
  return (
    <form
      className="admin-page__device-form"
      aria-label={`Register ${device.path}`}
      onSubmit={submit}
    >
      <label>
        Vendor <input required value={vendor} onChange={(e) => setVendor(e.target.value)} />
      </label>
      <label>
        Model <input required value={model} onChange={(e) => setModel(e.target.value)} />
      </label>
      <label>
        Short name{" "}
        <input
          value={shortName}
          maxLength={40}
          placeholder="for charts"
          onChange={(e) => setShortName(e.target.value)}
        />
      </label>
      <span className="muted">
        serial <span className="mono">{device.serial}</span>, {formatCapacity(device.size_bytes)}
      </span>
      <button type="submit" className="button" disabled={create.isPending}>
        Register
      </button>
      <button type="button" className="button" onClick={onDone}>
        Cancel
      </button>
      {create.error && <ErrorBox error={create.error} title="Could not register the drive" />}
    </form>
  );
}

function Devices({ bench, drives }: { bench: string; drives: Drive[] }) {
  const devices = useBenchDevices(bench);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="table-wrap">
      <table className="table" aria-label={`Devices of bench ${bench}`}>
        <thead>
          <tr>
            <th>Device</th>
            <th>Model</th>
            <th>Serial</th>
            <th className="num">Size</th>
            <th>Transport</th>
            <th>Drive</th>
          </tr>
        </thead>
        <tbody>
          {devices.isPending && <TableStateRow colSpan={6}>Loading devices…</TableStateRow>}
          {devices.data?.length === 0 && (
            <TableStateRow colSpan={6}>
              The worker reported no block devices and no files in its sandbox.
            </TableStateRow>
          )}
          {devices.data?.map((dev) => {
            const { drive: known, previous } = registeredAs(bench, dev, drives);
            return (
              <tr key={dev.path} data-device={dev.path}>
                <td className="mono">
                  {dev.path}{" "}
                  {dev.system && <Badge tone="danger">system disk</Badge>}
                  {dev.in_use.length > 0 && <Badge tone="warn">in use</Badge>}
                  {dev.simulated && <Badge tone="neutral">simulated</Badge>}
                  {dev.emulated && <Badge tone="neutral">emulated</Badge>}
                  {dev.kind === "file" && <span className="cell-sub">file in the sandbox</span>}
                  {dev.partitions.length > 0 && (
                    <span className="cell-sub">partitions: {dev.partitions.join(", ")}</span>
                  )}
                  {dev.system && <span className="cell-sub">{dev.system}</span>}
                  {dev.in_use.map((why) => (
                    <span key={why} className="cell-sub">
                      {why}
                    </span>
                  ))}
                </td>
                <td>{dev.model ?? <span className="muted">—</span>}</td>
                <td className="mono">{dev.serial}</td>
                <td className="num">{formatCapacity(dev.size_bytes)}</td>
                <td>{dev.transport ?? "—"}</td>
                <td>
                  {known ? (
                    <span>drive {known.id}</span>
                  ) : previous ? (
                    <span className="muted">
                      drive {previous.id} was registered here with serial {previous.serial}: another
                      drive now; register it by its /dev/disk/by-id name
                    </span>
                  ) : dev.system ? (
                    <span className="muted">the system runs from it: not offered</span>
                  ) : dev.in_use.length > 0 ? (
                    <span className="muted">in use: not offered</span>
                  ) : !dev.serial ? (
                    <span className="muted">no serial: cannot be registered</span>
                  ) : open === dev.path ? (
                    <RegisterForm bench={bench} device={dev} onDone={() => setOpen(null)} />
                  ) : (
                    <button
                      type="button"
                      className="button"
                      aria-label={`Register ${dev.path} as a drive`}
                      onClick={() => setOpen(dev.path)}
                    >
                      Register as a drive
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {devices.error && <ErrorBox error={devices.error} title="Could not load the devices" />}
    </div>
  );
}

/** The new bench's worker command, token included: shown once, ready to paste. */
function WorkerCommandBox({ added, onDone }: { added: BenchToken; onDone: () => void }) {
  const text = added.worker.lines.join("\n");
  return (
    <div className="admin-page__new-token" role="status" aria-label={`Worker command of ${added.name}`}>
      <p>
        <strong>Bench {added.name} added.</strong> Start its worker with these lines; copy them
        now, its token will not be shown again (it goes in the environment, not on a command
        line, where <code>ps</code> shows it to everyone on the machine).
      </p>
      <pre className="admin-page__command mono" data-testid="worker-command">
        {text}
      </pre>
      {added.worker.notes.length > 0 && (
        <ul className="muted">
          {added.worker.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      <CopyLine text={text} refused="select the lines and copy them" onDone={onDone} />
    </div>
  );
}

function AddBench() {
  const add = useAddBench();
  const [name, setName] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(name.trim(), { onSuccess: () => setName("") });
  };
  return (
    <div className="section__body">
      {add.data && <WorkerCommandBox added={add.data} onDone={() => add.reset()} />}
      <form className="admin-page__inline-form" aria-label="Add a bench" onSubmit={submit}>
        <label>
          Bench name{" "}
          <input
            name="bench_name"
            value={name}
            pattern="[a-z0-9][a-z0-9_\-]{0,62}"
            title="lower-case letters, digits, - and _"
            placeholder="bench2"
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <button type="submit" className="button button--primary" disabled={add.isPending || !name.trim()}>
          {add.isPending ? "Adding…" : "Add a bench"}
        </button>
      </form>
      {add.isError && <ErrorBox error={add.error} title="No bench added" />}
    </div>
  );
}

/** Each bench with the block devices and sandbox files its worker reports: a reviewer
 * registers a drive by picking one (its serial, size and firmware as the device reports
 * them). The disk the system runs from and disks in use are marked and not offered; the
 * worker's interlock still checks every target before it writes. */
export function BenchesSection() {
  const benches = useBenches();
  const drives = useDrives();
  return (
    <section className="section" aria-labelledby="benches-heading">
      <div className="section__header">
        <h2 id="benches-heading">Benches and their devices</h2>
        <span className="muted">`drivelab devices --bench NAME` lists the same</span>
      </div>
      <AddBench />
      {benches.error && <ErrorBox error={benches.error} title="Could not load the benches" />}
      {benches.data?.map((b) => (
        <div key={b.name} className="section__body" data-bench={b.name}>
          <h3>
            {b.name} <Badge tone={b.online ? "ok" : "neutral"}>{b.online ? "online" : "offline"}</Badge>
          </h3>
          {b.devices_reported ? (
            <Devices bench={b.name} drives={drives.data ?? []} />
          ) : (
            <p className="muted" role="status">
              The worker of bench {b.name} has not reported its devices yet; is it running?
            </p>
          )}
        </div>
      ))}
    </section>
  );
}
