import { describe, expect, it } from "vitest";
import type { Drive } from "../../api/types";
import { driveOptionText, driveState, groupByBench } from "./drive-select-utils";

const drive = (id: number, bench: string, over: Partial<Drive> = {}): Drive => ({
  id,
  serial: `SN${id}`,
  firmware: null,
  target_path: `/dev/x${id}`,
  simulated: false,
  emulated: false,
  label: `Drive ${id}`,
  bench: { id: bench === "a" ? 1 : 2, name: bench, online: true },
  model: {
    id,
    vendor: "Acme",
    model: `M${id}`,
    capacity_bytes: 1_000_204_886_016,
    interface: null,
    controller: null,
    nand: null,
    dram: null,
    embargo_until: null,
  },
  active_run_id: null,
  waiting_run_ids: [],
  embargoed: false,
  ...over,
});

describe("groupByBench", () => {
  it("groups drives under their bench, both in name order", () => {
    const groups = groupByBench([drive(3, "b"), drive(2, "a"), drive(1, "a")]);
    expect(groups.map((g) => [g.bench.name, g.drives.map((d) => d.id)])).toEqual([
      ["a", [1, 2]],
      ["b", [3]],
    ]);
  });
});

describe("driveState and driveOptionText", () => {
  it("says which run holds the drive and how many wait", () => {
    expect(driveState(drive(1, "a"))).toBe("free");
    expect(driveState(drive(1, "a", { active_run_id: 12 }))).toBe("busy: run #12");
    expect(driveState(drive(1, "a", { active_run_id: 12, waiting_run_ids: [13, 14] }))).toBe(
      "busy: run #12, 2 waiting",
    );
  });

  it("names model, capacity, serial and state", () => {
    expect(driveOptionText(drive(1, "a", { simulated: true }))).toBe(
      "Acme M1 (simulated) · 1 TB · S/N SN1 · free",
    );
  });
});
