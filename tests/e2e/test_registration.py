"""Registration from what the bench reports, through the api and the CLI: serials filled from
and checked against the report, the system disk refused, changes of serial, target or bench
audited, and simulated and real drives' runs kept apart on one bench."""

from __future__ import annotations

import secrets

import pytest

from tests.conftest import (
    Stack,
    register_drive,
    report_devices,
    reported_device,
    synthetic_device,
    wait_run,
)
from tests.faults.conftest import queue

pytestmark = pytest.mark.e2e

MiB = 1 << 20


def sparse(stack: Stack, name: str, size: int = 16 * MiB) -> str:
    path = stack.data_dir / "targets" / name
    with open(path, "wb") as f:
        f.truncate(size)
    return str(path)


def test_drives_add_with_the_target_alone_takes_the_reported_serial(stack: Stack) -> None:
    target = sparse(stack, f"cli-{secrets.token_hex(3)}.img")
    with stack.client() as c:
        entry = reported_device(c, "local", target)
    assert entry["kind"] == "file" and entry["simulated"] and entry["serial"].startswith("SIM-")
    out = stack.cli(
        "drives", "add", "--bench", "local", "--target", target,
        "--vendor", "drivelab", "--model", f"CLI picked {secrets.token_hex(2)}",
    ).stdout  # fmt: skip
    assert "[simulated]" in out, out
    with stack.client() as c:
        drive = next(d for d in c.get("/api/drives").json() if d["target_path"] == target)
    assert drive["serial"] == entry["serial"] and drive["simulated"]
    assert drive["model"]["capacity_bytes"] == 16 * MiB
    listing = stack.cli("devices", "--bench", "local").stdout
    line = next(line for line in listing.splitlines() if line.startswith(target))
    assert entry["serial"] in line and "simulated" in line and f"drive {drive['id']}" in line
    assert "SYSTEM DISK" in listing  # the disk / lives on, marked


def test_a_serial_or_target_the_bench_does_not_report_is_refused(stack: Stack) -> None:
    target = sparse(stack, f"wrong-{secrets.token_hex(3)}.img")
    body = {
        "bench": "local",
        "target_path": target,
        "serial": "S6XXNX0R000001",
        "vendor": "drivelab",
        "model": "made-up serial",
    }
    with stack.client() as c:
        entry = reported_device(c, "local", target)
        r = register_drive(c, body, refused=True)
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert f"reports serial {entry['serial']} at {target}, not S6XXNX0R000001" in detail
        assert "drivelab devices --bench local" in detail
        r = register_drive(c, {**body, "target_path": target + ".nope"}, refused=True)
        assert r.status_code == 422 and "reports no device or sandbox file at" in r.text
        # The flag is the report's: a sandbox file is not a real drive.
        r = register_drive(c, {**body, "serial": entry["serial"], "simulated": False})
        assert r.status_code == 422 and r.json()["field"] == "simulated", r.text
        system = next(d for d in c.get("/api/benches/local/devices").json() if d["system"])
        r = register_drive(
            c, {**body, "target_path": system["path"], "serial": system["serial"]}, refused=True
        )
        assert r.status_code == 422, r.text
        assert "is the disk the system runs from" in r.json()["detail"]


def test_a_change_of_serial_or_target_is_checked_and_audited(stack: Stack) -> None:
    first = sparse(stack, f"move-a-{secrets.token_hex(3)}.img")
    second = sparse(stack, f"move-b-{secrets.token_hex(3)}.img")
    drive = stack.add_drive(first, f"moved {secrets.token_hex(2)}")
    with stack.client() as c:
        other = reported_device(c, "local", second)
        r = c.patch(f"/api/drives/{drive['id']}", json={"serial": "S6XXNX0R000002"})
        assert r.status_code == 422 and "drivelab devices --bench local" in r.text, r.text
        r = c.patch(f"/api/drives/{drive['id']}", json={"target_path": second})
        assert r.status_code == 422, r.text  # the serial there is another
        assert f"reports serial {other['serial']} at {second}" in r.text
        r = c.patch(
            f"/api/drives/{drive['id']}",
            json={"target_path": second, "serial": other["serial"]},
        )
        assert r.status_code == 200, r.text
        events = c.get("/api/audit", params={"drive_id": drive["id"]}).json()
        items = events["items"] if isinstance(events, dict) else events
        changed = [e for e in items if e["action"] == "drive.changed"]
        assert len(changed) == 1, items
        assert changed[0]["details"]["serial"] == {"old": drive["serial"], "new": other["serial"]}
        assert changed[0]["details"]["target_path"] == {"old": first, "new": second}
        assert changed[0]["actor_name"]
        assert any(e["action"] == "drive.registered" for e in items)


def new_bench(stack: Stack, name: str) -> str:
    out = stack.cli("benches", "add", name).stdout
    token = next((w.split("=", 1)[1] for w in out.split() if w.startswith("DRIVELAB_TOKEN=")), None)
    assert token, out
    return token


def test_simulated_and_real_drives_runs_do_not_share_a_bench(stack: Stack) -> None:
    tag = secrets.token_hex(3)
    bench = f"mixed-{tag}"  # no worker: its runs stay queued
    token = new_bench(stack, bench)
    with stack.client() as c:
        r = c.get(f"/api/benches/{bench}/devices")
        assert r.status_code == 409 and "has not reported its devices yet" in r.text
        report_devices(
            c,
            token,
            [
                synthetic_device(f"/dev/disk/by-id/nvme-real-{tag}", f"REAL{tag}", 256 * MiB,
                                 simulated=False, model="Real NVMe"),
                synthetic_device(f"/dev/disk/by-id/sim-{tag}", f"SIM{tag}", 256 * MiB),
            ],
        )  # fmt: skip
        drives = {}
        for kind, path in (
            ("real", f"/dev/disk/by-id/nvme-real-{tag}"),
            ("sim", f"/dev/disk/by-id/sim-{tag}"),
        ):
            entry = reported_device(c, bench, path)
            r = register_drive(
                c,
                {"bench": bench, "target_path": entry["path"], "vendor": "drivelab",
                 "model": f"{kind} {tag}"},
            )  # fmt: skip
            assert r.status_code == 201, r.text
            drives[kind] = r.json()
        assert not drives["real"]["simulated"] and drives["sim"]["simulated"]
        params = {"span": "32m", "runtime_s": 1, "seq_runtime_s": 1}
        real_run = queue(c, drives["real"], "four-corners", params)
        r = c.post(
            "/api/runs",
            json={"plan": "four-corners", "drive_id": drives["sim"]["id"], "params": params,
                  "confirm_serial": drives["sim"]["serial"]},
        )  # fmt: skip
        assert r.status_code == 409, r.text
        assert f"run {real_run['id']} queued on a real drive" in r.json()["detail"]
        assert "kernel worker thread" in r.json()["detail"]
        assert c.post(f"/api/runs/{real_run['id']}/cancel").status_code == 200
        # Once the real drive's run has ended, the simulated drive's run is taken.
        wait_run(c, real_run["id"], until=("cancelled",), timeout=60)
        sim_run = queue(c, drives["sim"], "four-corners", params)
        assert c.post(f"/api/runs/{sim_run['id']}/cancel").status_code == 200


def test_a_run_records_what_was_changed_on_the_host(stack: Stack) -> None:
    drive = stack.add_drive(
        sparse(stack, f"changes-{secrets.token_hex(3)}.img", 32 * MiB), "host changes"
    )
    params = {"span": "16m", "runtime_s": 1, "seq_runtime_s": 1, "patterns": ["incompressible"]}
    with stack.client() as c:
        run = wait_run(c, queue(c, drive, "four-corners", params)["id"], timeout=180)
    assert run["status"] == "done", run
    changes = run["environment"]["host_changes"]
    for when in ("start", "end"):
        seen = changes[when]
        assert set(seen) == {"kworker_priority", "simulated_drives"}
        k = seen["kworker_priority"]
        if k is not None:
            assert k["threads"] > 0 and k["to"] == -10


def test_an_emulated_drive_is_registered_and_listed_as_emulated(stack: Stack) -> None:
    """A virtual bench reports QEMU's controller as emulated (not a loop device, not a
    product): registered from that report, the drive, its model in the catalog and the CLI's
    listing say "emulated"; simulated stays true beside it (results that are not a product's
    are kept apart everywhere). A model of an emulated drive is not reused for a simulated
    one, whatever the person registering types."""
    tag = secrets.token_hex(3)
    token = new_bench(stack, f"vm-{tag}")
    path = "/dev/nvme0n1"
    device = {
        **synthetic_device(path, f"EMU-{tag}", 128 * MiB, simulated=False, model="QEMU NVMe Ctrl"),
        "emulated": True,
    }
    with stack.client() as c:
        report_devices(c, token, [device])
        body = {
            "bench": f"vm-{tag}",
            "target_path": path,
            "vendor": "QEMU",
            "model": f"NVMe Ctrl {tag}",
        }
        r = c.post("/api/drives", json=body)
        assert r.status_code == 201, r.text
        drive = r.json()
        assert drive["emulated"] and drive["simulated"], drive
        assert drive["serial"] == f"EMU-{tag}"
        listed = next(d for d in c.get("/api/drives").json() if d["id"] == drive["id"])
        assert listed["emulated"] and listed["simulated"]
        model = next(m for m in c.get("/api/models").json() if m["id"] == drive["model"]["id"])
        assert model["emulated"] and model["simulated"]
        # The same model name for a sandbox file (simulated, not emulated): refused, said so.
        target = sparse(stack, f"emu-{tag}.img", 128 * MiB)  # the same model: vendor, name, size
        r = register_drive(
            c,
            {"bench": "local", "target_path": target, "vendor": "QEMU", "model": body["model"]},
        )
        assert r.status_code == 409, r.text
        detail = r.json()["detail"]
        assert "is the model of an emulated drive" in detail, detail
        assert "reports" in detail and "as a simulated drive" in detail, detail
    out = stack.cli("drives").stdout
    line = next(line for line in out.splitlines() if f"NVMe Ctrl {tag}" in line)
    assert "[emulated]" in line and "[simulated]" not in line, line
