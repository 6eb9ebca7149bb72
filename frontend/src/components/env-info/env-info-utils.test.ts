import { describe, expect, it } from "vitest";
import { envSections, envValue, formatBinaryBytes } from "./env-info-utils";

const ENV = {
  drive: {
    path: "/data/targets/sim.img",
    kind: "file",
    model: null,
    serial: "SIM-1234",
    firmware: null,
    size_bytes: 1073741824,
    logical_sector: 512,
    transport: "file",
    rotational: null,
    smart: null,
    nvme_id_ctrl: null,
    link_speed: null,
  },
  host: {
    hostname: "bench1",
    cpu: "AMD Ryzen 7",
    cpus: 16,
    memory_bytes: 34359738368,
    os: "Debian GNU/Linux 13",
    kernel: "6.12.0",
    fio_version: "fio-3.39",
  },
  worker: "local@bench1",
};

describe("envSections", () => {
  it("lists the drive, its SMART and the host in a readable order", () => {
    const sections = envSections(ENV);
    expect(sections.map((s) => s.title)).toEqual(["Drive", "SMART before", "Host"]);
    const drive = Object.fromEntries(sections[0]!.rows.map((r) => [r.label, r.value]));
    expect(drive).toMatchObject({
      Model: "—",
      Serial: "SIM-1234",
      Capacity: "1.07 GB (1,073,741,824 bytes)",
      "Logical sector": "512 B",
      Target: "/data/targets/sim.img",
      Rotational: "—",
    });
    expect(sections[1]!.empty).toMatch(/no SMART/);
    const host = Object.fromEntries(sections[2]!.rows.map((r) => [r.label, r.value]));
    expect(host).toEqual({
      Host: "bench1",
      CPU: "AMD Ryzen 7",
      CPUs: "16",
      Memory: "32.0 GiB",
      OS: "Debian GNU/Linux 13",
      Kernel: "6.12.0",
      fio: "fio-3.39",
      Worker: "local@bench1",
    });
  });

  it("shows what the safety interlock held and gave fio", () => {
    const target = {
      registered: "/dev/disk/by-id/nvme-X",
      resolved: "/dev/nvme1n1",
      kind: "block",
      device: "259:3",
      held: "exclusive (O_EXCL)",
    };
    const sections = envSections({ ...ENV, target });
    expect(sections.map((s) => s.title)).toEqual(["Drive", "Safety interlock", "SMART before", "Host"]);
    const rows = Object.fromEntries(sections[1]!.rows.map((r) => [r.label, r.value]));
    expect(rows).toEqual({
      "Registered as": "/dev/disk/by-id/nvme-X",
      "fio was given": "/dev/nvme1n1",
      "Device number": "259:3",
      "Held for the run": "exclusive (O_EXCL)",
      Checked: "before every write and at the end of every idle step",
    });
  });

  it("shows SMART before and after, and resumes", () => {
    const smart = { passed: true, temperature_c: 41, power_on_hours: 12, data_written_bytes: 5e9 };
    const sections = envSections({
      ...ENV,
      drive: { ...ENV.drive, smart },
      smart_after: { ...smart, temperature_c: 55 },
      resumes: [{ at: "2026-11-21T10:00:00Z", from_step_name: "seq-read", previous_status: "lost" }],
    });
    expect(sections.map((s) => s.title)).toEqual([
      "Drive",
      "SMART before",
      "SMART after",
      "Host",
      "Resumed",
    ]);
    const after = Object.fromEntries(sections[2]!.rows.map((r) => [r.label, r.value]));
    expect(after).toMatchObject({ "Health check passed": "yes", Temperature: "55 °C" });
    expect(after["Data written"]).toBe("5 GB (5,000,000,000 bytes)");
    expect(sections[4]!.rows[0]!.value).toBe("from step seq-read after it was lost");
  });

  it("says the drive is recorded at start while nothing is", () => {
    expect(envSections({})).toEqual([
      { title: "Drive", rows: [], empty: "Recorded when the run starts." },
    ]);
    expect(envSections(null)).toHaveLength(1);
  });
});

describe("host changes", () => {
  it("says what a simulated drive changed on the host, at start and at end", () => {
    const sections = envSections({
      host_changes: {
        start: { kworker_priority: null, simulated_drives: [] },
        end: {
          kworker_priority: { threads: 12, from: 0, to: -10, by: ["simulated drive /dev/loop3"] },
          simulated_drives: [{ device: "/dev/loop3" }],
        },
      },
    });
    const host = sections.find((s) => s.title === "Host changes");
    expect(host?.rows).toEqual([
      { label: "At start", value: "none: kernel worker threads at their own priority" },
      {
        label: "At end",
        value: "kworker priority raised: 12 threads, nice 0 -> -10 (by simulated drive /dev/loop3)",
      },
    ]);
  });

  it("shows no section for a run that recorded none", () => {
    expect(envSections({}).some((s) => s.title === "Host changes")).toBe(false);
  });
});

describe("envValue and formatBinaryBytes", () => {
  it("formats what a record holds", () => {
    expect(envValue(null)).toBe("—");
    expect(envValue(false)).toBe("no");
    expect(envValue([])).toBe("none");
    expect(envValue(["a", 1])).toBe("a, 1");
    expect(envValue({ a: 1 })).toBe('{"a":1}');
    expect(formatBinaryBytes(512)).toBe("512 B");
    expect(formatBinaryBytes(1536 * 1024 * 1024)).toBe("1.5 GiB");
  });
});
