"""The virtual bench (`drivelab vm-bench`): a QEMU guest whose NVMe controller and AHCI SATA
disk the guest's own Linux drivers, nvme-cli, smartctl and hdparm talk to as to hardware, with
`drivelab worker --bench NAME` inside it as a remote bench.

The guest boots the Debian kernel that `make vm-tools` unpacks into the cache directory, from a
small initramfs built here (busybox and the modules that mount the root): its root is the
host's filesystem shared read-only over 9p, so it runs this project's own .venv, fio and
nvme-cli. Writable places (/tmp, /run, /var, the worker's data directory) are tmpfs in the
guest. It reaches the host's api and broker over QEMU's user networking, where the host is
10.0.2.2, with the bench's token and the broker password, as a lab machine would.

The drives are sparse files under the run directory (in drivelab's data directory, never
tmpfs), each with the serial given to QEMU:
- one NVMe controller (`nvme0`, serial SERIAL_NVME) carrying two namespaces: nsid 1 and nsid 2;
- one AHCI SATA disk (serial SERIAL_SATA), without the ATA security feature set.
The run directory holds the QEMU monitor socket (`monitor.sock`: device_del / device_add), the
guest console (`console.log`), the worker's log (`ctl/worker.log`) and a small command channel
(`ctl/cmd/`) through which tests run commands in the guest (`VmBench.exec`).

Functional truth only: under TCG (no usable KVM) the guest is far too slow for performance
figures, and QEMU's controller is not a drive's: its timings mean nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import logging
import os
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger("drivelab.vmbench")

# Serials and models given to QEMU (NVMe serials are at most 20 characters).
SERIAL_NVME = "DLVM-NVME-0001"
SERIAL_NVME_SPARE = "DLVM-NVME-0002"
SERIAL_SATA = "DLVM-SATA-0001"
MODEL_SATA = "QEMU SATA drivelab"
MIB = 1024 * 1024

GUEST_HOST = "10.0.2.2"  # the host, as QEMU's user networking shows it to the guest
# The modules the initramfs loads to mount the host's root (9p over virtio); everything else is
# loaded later by modprobe from /lib/modules/VERSION, which `make vm-tools` links to the cache.
ROOT_MODULES = ("virtio_pci", "9pnet_virtio", "9p")
GUEST_MODULES = ("nvme", "ahci", "sd_mod", "virtio_net", "ext4")


class VmBenchError(RuntimeError):
    """Something the virtual bench cannot do, said so that it can be fixed."""


def cache_dir() -> Path:
    return Path(os.environ.get("DRIVELAB_VM_CACHE", Path.home() / ".cache" / "drivelab" / "vm"))


@dataclass(frozen=True)
class Kernel:
    vmlinuz: Path
    version: str
    modules: Path  # lib/modules/VERSION of the unpacked package


def find_kernel(cache: Path | None = None) -> Kernel:
    """The kernel `make vm-tools` unpacked, with its modules indexed and linked where the guest
    (whose root is the host's) finds them."""
    root = (cache or cache_dir()) / "root"
    images = sorted((root / "boot").glob("vmlinuz-*"))
    if not images:
        raise VmBenchError(
            f"no guest kernel in {root}/boot: run `make vm-tools` (it downloads a Debian "
            "linux-image package and unpacks it there)"
        )
    vmlinuz = images[-1]
    version = vmlinuz.name.removeprefix("vmlinuz-")
    modules = root / "lib" / "modules" / version
    if not (modules / "modules.dep").is_file():
        raise VmBenchError(f"{modules} has no modules.dep: run `make vm-tools` (it runs depmod)")
    link = Path("/lib/modules") / version
    if link.resolve() != modules.resolve():
        raise VmBenchError(
            f"{link} does not lead to {modules}: the guest loads its modules from there; run "
            "`make vm-tools` (as root or with sudo) to link it"
        )
    return Kernel(vmlinuz, version, modules)


def _module_deps(modules: Path) -> dict[str, list[str]]:
    """modules.dep: module name -> [its path, then the paths of what it needs]."""
    table: dict[str, list[str]] = {}
    for line in (modules / "modules.dep").read_text().splitlines():
        path, _, deps = line.partition(":")
        name = Path(path).name.split(".ko")[0].replace("-", "_")
        table[name] = [path, *deps.split()]
    return table


def _load_order(modules: Path, wanted: tuple[str, ...]) -> list[str]:
    """Paths of `wanted` and their dependencies, each after what it needs."""
    table = _module_deps(modules)
    by_path = {paths[0]: name for name, paths in table.items()}
    order: list[str] = []

    def visit(name: str) -> None:
        if name not in table:
            return  # built into the kernel
        path, *deps = table[name]
        for dep in reversed(deps):  # modules.dep lists the deepest dependency last
            visit(by_path[dep])
        if path not in order:
            order.append(path)

    for name in wanted:
        visit(name.replace("-", "_"))
    return order


def _cpio(entries: list[tuple[str, int, bytes]]) -> bytes:
    """A newc cpio archive of (name, mode, data); directories have data b""."""
    out = io.BytesIO()

    def pad(n: int) -> None:
        out.write(b"\0" * ((4 - n % 4) % 4))

    for ino, (name, mode, data) in enumerate([*entries, ("TRAILER!!!", 0, b"")], start=1):
        encoded = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0]
        header = b"070701" + b"".join(b"%08X" % f for f in fields)
        out.write(header + encoded)
        pad(len(header) + len(encoded))
        out.write(data)
        pad(len(data))
    return out.getvalue()


INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules/order); do insmod /modules/$m || echo "drivelab-vm: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /newroot \\
  || { echo "drivelab-vm: cannot mount the host's root"; poweroff -f; }
script=$(sed -n 's/.*drivelab.script=\\([^ ]*\\).*/\\1/p' /proc/cmdline)
umount /proc /sys /dev
exec switch_root /newroot /bin/sh "$script"
"""

# Where the guest mounts tmpfs (writable places over the read-only host filesystem).
GUEST_TMPFS = ("/tmp", "/run", "/var/tmp", "/var/lib", "/var/log", "/var/cache", "/mnt", "/media")


def keep_visible(paths: list[Path]) -> tuple[str, str]:
    """Shell lines that hold each of `paths` that lies under a place the guest covers with
    tmpfs (a checkout in /tmp) by a bind mount under /dev, and put it back after: the guest
    runs the project's own .venv and sources from the host's filesystem."""
    hold, back = [], []
    kept: list[Path] = []
    for path in paths:
        if any(path == k or k in path.parents for k in kept):
            continue
        if not any(Path(t) in path.parents or path == Path(t) for t in GUEST_TMPFS):
            continue
        kept.append(path)
        held = f"/dev/.drivelab-keep-{len(kept)}"
        quoted = shlex.quote(str(path))
        hold.append(f"mkdir -p {held} && mount --bind {quoted} {held}")
        back.append(f"mkdir -p {quoted} && mount --bind {held} {quoted}")
    return "\n".join(hold) or ":", "\n".join(back) or ":"


# Runs in the guest, from the host's filesystem (read-only), as PID 1.
GUEST_SCRIPT = r"""#!/bin/sh
# drivelab virtual bench: the guest's init (written by worker/vmbench.py)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts
# The project and its .venv stay visible where the host has them, even under /tmp (a CI
# checkout): held by a bind mount while tmpfs covers the writable places, then put back.
{keep_hold}
for d in {tmpfs}; do
  mount -t tmpfs tmpfs "$d" 2>/dev/null
done
{keep_back}
mount -t tmpfs tmpfs /dev/shm
mkdir -p {ctl}
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 ctl {ctl} || echo "drivelab-vm: no ctl"
exec >{ctl}/guest.log 2>&1
echo "drivelab-vm: guest up, kernel $(uname -r)"
hostname {hostname}
for m in {modules}; do modprobe "$m" || echo "drivelab-vm: modprobe $m failed"; done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via {guest_host}
i=0
while [ ! -e /dev/nvme0n2 ] || [ ! -e /dev/sda ]; do
  i=$((i + 1)); [ $i -gt 120 ] && break; sleep 0.5
done
ls -l /dev/nvme* /dev/sd* 2>&1
echo "drivelab-vm: devices ready"
# The command channel: the host drops N.sh into cmd/, the guest writes N.out and N.rc.
(
  cd {ctl}/cmd
  while :; do
    for f in *.sh; do
      [ -e "$f" ] || continue
      n=${{f%.sh}}
      mv "$f" "$n.run"
      ( sh "$n.run" >"$n.out" 2>&1; echo $? >"$n.rc.tmp"; mv "$n.rc.tmp" "$n.rc" ) &
    done
    sleep 0.3
  done
) &
mkdir -p /tmp/home; export HOME=/tmp/home PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
set -a
. {ctl}/worker.env
set +a
# The worker, started again when it dies (a lab machine's service would be), until stopped.
while [ ! -e {ctl}/stop ]; do
  echo "drivelab-vm: starting the worker"
  {drivelab} worker --bench {bench} >>{ctl}/worker.log 2>&1 &
  echo $! >{ctl}/worker.pid
  wait $!
  echo "drivelab-vm: the worker exited ($?)"
  while [ -e {ctl}/no-restart ] && [ ! -e {ctl}/stop ]; do sleep 0.5; done
  sleep 1
done
echo "drivelab-vm: powering off"
sync
poweroff -f
"""


def _busybox() -> Path:
    found = shutil.which("busybox")
    if not found:
        raise VmBenchError("busybox is missing: run `make vm-tools` (busybox-static)")
    return Path(found)


def build_initramfs(kernel: Kernel, dest: Path) -> Path:
    """/init, a static busybox and the modules that mount the host's root, gzip'd cpio."""
    busybox = _busybox()
    if b"ld-linux" in busybox.read_bytes()[:8192]:
        raise VmBenchError(f"{busybox} is not static: install busybox-static")
    entries: list[tuple[str, int, bytes]] = [
        ("bin", stat.S_IFDIR | 0o755, b""),
        ("modules", stat.S_IFDIR | 0o755, b""),
        ("init", stat.S_IFREG | 0o755, INIT.encode()),
        ("bin/busybox", stat.S_IFREG | 0o755, busybox.read_bytes()),
    ]
    names = []
    for path in _load_order(kernel.modules, ROOT_MODULES):
        data = (kernel.modules / path).read_bytes()
        if path.endswith(".xz") or path.endswith(".zst") or path.endswith(".gz"):
            raise VmBenchError(f"{path} is compressed; busybox insmod needs plain .ko files")
        name = Path(path).name
        names.append(name)
        entries.append((f"modules/{name}", stat.S_IFREG | 0o644, data))
    entries.append(("modules/order", stat.S_IFREG | 0o644, "\n".join(names).encode() + b"\n"))
    dest.write_bytes(gzip.compress(_cpio(entries), compresslevel=1))
    return dest


def guest_url(url: str) -> str:
    """A URL of the host as the guest reaches it: 127.0.0.1 / localhost become 10.0.2.2."""
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1", "0.0.0.0"):
        return url
    netloc = parts.netloc.rsplit("@", 1)
    host_port = netloc[-1]
    port = f":{parts.port}" if parts.port else ""
    host_port = GUEST_HOST + port
    return urlunsplit(parts._replace(netloc="@".join([*netloc[:-1], host_port])))


def kvm_usable(timeout_s: float = 20.0) -> bool:
    """Whether a KVM guest really runs here: /dev/kvm can exist in a nested VM whose guests
    hang before the kernel prints anything. Boots the kernel with KVM for a few seconds and
    looks for its first line."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    try:
        kernel = find_kernel()
    except VmBenchError:
        return False
    cmd = [
        "qemu-system-x86_64", "-accel", "kvm", "-m", "256", "-display", "none",
        "-no-reboot", "-serial", "stdio", "-kernel", str(kernel.vmlinuz),
        "-append", "console=ttyS0 panic=-1 earlyprintk=ttyS0",
    ]  # fmt: skip
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
        )
    except OSError:
        return False
    found = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if b"Linux version" in line:
                found.set()
                return

    threading.Thread(target=read, daemon=True).start()
    found.wait(timeout_s)
    proc.kill()
    proc.wait()
    return found.is_set()


def kvm_usable_cached() -> bool:
    """kvm_usable(), remembered in the cache directory for this host kernel (a probe that
    fails costs its whole timeout at every boot)."""
    key = f"{os.uname().release} {os.path.exists('/dev/kvm')}"
    memo = cache_dir() / "kvm-probe"
    with contextlib.suppress(OSError):
        seen, _, answer = memo.read_text().strip().rpartition(" ")
        if seen == key and answer in ("kvm", "tcg"):
            return answer == "kvm"
    usable = kvm_usable()
    with contextlib.suppress(OSError):
        memo.parent.mkdir(parents=True, exist_ok=True)
        memo.write_text(f"{key} {'kvm' if usable else 'tcg'}\n")
    return usable


@dataclass
class VmBenchConfig:
    bench: str
    token: str
    broker_url: str
    api_url: str
    run_dir: Path
    nvme_ns_mib: tuple[int, int] = (128, 64)
    sata_mib: int = 64
    spare_mib: int = 64
    memory_mib: int = 1536
    cpus: int = 2
    accel: str = "auto"  # "auto" | "kvm" | "tcg"
    worker_env: dict[str, str] = field(default_factory=dict)


class VmBench:
    """One guest. `start()` boots it (returns at once), `wait_ready()` waits for its devices,
    `exec()` runs a command inside, `monitor()` speaks to QEMU's monitor, `stop()` ends it."""

    def __init__(self, config: VmBenchConfig) -> None:
        self.config = config
        self.run_dir = config.run_dir.resolve()
        self.ctl = self.run_dir / "ctl"
        self.proc: subprocess.Popen[bytes] | None = None
        self.accel: str | None = None
        self._seq = 0
        self._lock = threading.Lock()

    # -- files
    def image(self, name: str) -> Path:
        """Backing file of a drive: "nvme-ns1", "nvme-ns2", "sata" or "spare"."""
        return self.run_dir / f"{name}.img"

    def _make_images(self) -> None:
        sizes = {
            "nvme-ns1": self.config.nvme_ns_mib[0],
            "nvme-ns2": self.config.nvme_ns_mib[1],
            "sata": self.config.sata_mib,
            "spare": self.config.spare_mib,
        }
        for name, mib in sizes.items():
            path = self.image(name)
            if not path.exists() or path.stat().st_size != mib * MIB:
                with open(path, "wb") as f:
                    f.truncate(mib * MIB)

    def _write_guest_files(self, kernel: Kernel) -> Path:
        (self.ctl / "cmd").mkdir(parents=True, exist_ok=True)
        for stale in ("stop", "no-restart", "worker.pid"):
            (self.ctl / stale).unlink(missing_ok=True)
        for old in (self.ctl / "cmd").iterdir():
            old.unlink()
        env = {
            "DRIVELAB_BENCH": self.config.bench,
            "DRIVELAB_TOKEN": self.config.token,
            "DRIVELAB_API_URL": guest_url(self.config.api_url),
            "DRIVELAB_BROKER_URL": guest_url(self.config.broker_url),
            "DRIVELAB_DATA_DIR": "/var/lib/drivelab",
            **self.config.worker_env,
        }
        env_file = self.ctl / "worker.env"
        env_file.touch(mode=0o600)
        env_file.write_text("".join(f"{k}={shlex.quote(v)}\n" for k, v in env.items()))
        drivelab = Path(os.environ.get("VIRTUAL_ENV") or Path(__file__).parents[1] / ".venv")
        hold, back = keep_visible([Path(__file__).resolve().parents[1], drivelab.resolve()])
        script = self.run_dir / "guest-init.sh"
        script.write_text(
            GUEST_SCRIPT.format(
                keep_hold=hold,
                keep_back=back,
                tmpfs=" ".join(GUEST_TMPFS),
                ctl=self.ctl,
                hostname=re.sub(r"[^A-Za-z0-9-]", "-", f"vm-{self.config.bench}")[:60],
                modules=" ".join(GUEST_MODULES),
                guest_host=GUEST_HOST,
                drivelab=shlex.quote(str(drivelab / "bin" / "drivelab")),
                bench=shlex.quote(self.config.bench),
            )
        )
        return script

    def qemu_command(self, kernel: Kernel, initramfs: Path, script: Path, accel: str) -> list[str]:
        ns1, ns2 = self.image("nvme-ns1"), self.image("nvme-ns2")
        return [
            "qemu-system-x86_64",
            "-machine", "pc",
            "-accel", accel,
            "-cpu", "host" if accel == "kvm" else "max",
            "-smp", str(self.config.cpus),
            "-m", str(self.config.memory_mib),
            "-display", "none",
            "-no-reboot",
            "-serial", f"file:{self.run_dir / 'console.log'}",
            "-monitor", f"unix:{self.run_dir / 'monitor.sock'},server=on,wait=off",
            "-kernel", str(kernel.vmlinuz),
            "-initrd", str(initramfs),
            # no_timer_check: under TCG on a busy host the kernel's check of the IO-APIC timer
            # can see too few ticks and panic ("IO-APIC + timer doesn't work"); the emulated
            # timer works, the check is what a slow virtual CPU fails.
            "-append", f"console=ttyS0 panic=-1 loglevel=4 no_timer_check "
            f"drivelab.script={script}",
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,"
            "multidevs=remap",
            "-virtfs", f"local,path={self.ctl},mount_tag=ctl,security_model=none",
            "-netdev", "user,id=net0",
            "-device", "virtio-net-pci,netdev=net0",
            "-drive", f"file={ns1},if=none,id=ns1,format=raw",
            "-drive", f"file={ns2},if=none,id=ns2,format=raw",
            "-device", f"nvme,id=nvme0,serial={SERIAL_NVME}",
            "-device", "nvme-ns,drive=ns1,bus=nvme0,nsid=1",
            "-device", "nvme-ns,drive=ns2,bus=nvme0,nsid=2",
            "-drive", f"file={self.image('sata')},if=none,id=sata0,format=raw",
            "-device", "ahci,id=ahci0",
            "-device", f"ide-hd,drive=sata0,bus=ahci0.0,serial={SERIAL_SATA},model={MODEL_SATA}",
            "-drive", f"file={self.image('spare')},if=none,id=spare,format=raw",
        ]  # fmt: skip

    def start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        kernel = find_kernel()
        for tool in ("qemu-system-x86_64",):
            if not shutil.which(tool):
                raise VmBenchError(f"{tool} is missing: run `make vm-tools`")
        self._make_images()
        initramfs = build_initramfs(kernel, self.run_dir / "initramfs.gz")
        script = self._write_guest_files(kernel)
        accel = self.config.accel
        if accel == "auto":
            accel = "kvm" if kvm_usable_cached() else "tcg"
            log.info("KVM %s: the guest runs under %s", "works" if accel == "kvm" else
                     "does not run a guest here (or is absent)", accel.upper())
        self.accel = accel
        (self.run_dir / "accel").write_text(accel + "\n")
        (self.run_dir / "console.log").unlink(missing_ok=True)
        (self.ctl / "guest.log").unlink(missing_ok=True)
        cmd = self.qemu_command(kernel, initramfs, script, accel)
        log.info("starting the guest: %s", shlex.join(cmd))
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=open(self.run_dir / "qemu.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us, not QEMU: we stop it ourselves
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def guest_log(self) -> str:
        try:
            return (self.ctl / "guest.log").read_text(errors="replace")
        except OSError:
            return ""

    def console(self) -> str:
        try:
            return (self.run_dir / "console.log").read_text(errors="replace")
        except OSError:
            return ""

    def wait_ready(self, timeout_s: float = 600.0) -> None:
        """Until the guest has its drives and its command channel answers."""
        deadline = time.monotonic() + timeout_s
        while "devices ready" not in self.guest_log():
            if not self.alive():
                raise VmBenchError(
                    f"the guest stopped while booting; console:\n{self.console()[-3000:]}"
                )
            if time.monotonic() > deadline:
                raise VmBenchError(
                    f"the guest was not up after {timeout_s:.0f} s; console:\n"
                    f"{self.console()[-3000:]}\nguest log:\n{self.guest_log()[-2000:]}"
                )
            time.sleep(1)
        self.exec("true", timeout_s=max(60.0, deadline - time.monotonic()))

    def exec(self, command: str, timeout_s: float = 300.0, check: bool = True) -> str:
        """Run a shell command in the guest (as root); its output. check: raise unless it
        exits 0."""
        with self._lock:
            self._seq += 1
            n = f"{os.getpid()}-{self._seq}"
        cmd_dir = self.ctl / "cmd"
        tmp = cmd_dir / f"{n}.tmp"
        tmp.write_text(command + "\n")
        tmp.rename(cmd_dir / f"{n}.sh")
        rc_file = cmd_dir / f"{n}.rc"
        deadline = time.monotonic() + timeout_s
        while not rc_file.exists():
            if not self.alive():
                raise VmBenchError(f"the guest stopped while running {command!r}")
            if time.monotonic() > deadline:
                raise VmBenchError(f"{command!r} did not end in the guest within {timeout_s} s")
            time.sleep(0.2)
        rc = int(rc_file.read_text().strip() or "-1")
        out = (cmd_dir / f"{n}.out").read_text(errors="replace")
        for suffix in (".rc", ".out", ".run"):
            (cmd_dir / f"{n}{suffix}").unlink(missing_ok=True)
        if check and rc != 0:
            raise VmBenchError(f"{command!r} exited {rc} in the guest:\n{out}")
        return out

    def exec_json(self, command: str, timeout_s: float = 300.0) -> dict:
        return json.loads(self.exec(command, timeout_s=timeout_s))

    def monitor(self, command: str, timeout_s: float = 30.0) -> str:
        """One QEMU monitor (HMP) command, e.g. "device_del nvme0"; what it printed."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            sock.connect(str(self.run_dir / "monitor.sock"))
            banner = b""
            while b"(qemu)" not in banner:
                banner += sock.recv(4096)
            sock.sendall(command.encode() + b"\n")
            reply = b""
            while reply.count(b"(qemu)") < 1:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
        text = reply.decode(errors="replace").replace("\r", "")
        text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
        lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("(qemu)")]
        return "\n".join(ln for ln in lines if command not in ln).strip()

    def kill_worker(self) -> None:
        """SIGKILL the guest's worker (the guest starts it again a second later)."""
        self.exec(f"kill -9 $(cat {self.ctl}/worker.pid)")

    def stop(self, timeout_s: float = 60.0) -> None:
        """Stop the worker and power the guest off; kill QEMU if it does not go."""
        if self.proc is None:
            return
        if self.alive():
            (self.ctl / "stop").touch()
            with contextlib.suppress(Exception):
                self.exec(f"kill -TERM $(cat {self.ctl}/worker.pid)", timeout_s=20, check=False)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                log.warning("the guest did not power off in %.0f s: killing QEMU", timeout_s)
        self.kill()

    def kill(self) -> None:
        """End QEMU at once (the bench is lost, as if its power went)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    """`drivelab vm-bench`: see backend/cli.py for the options."""
    parser = argparse.ArgumentParser(prog="drivelab vm-bench")
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bench", default=os.environ.get("DRIVELAB_BENCH"),
                   help="the bench's name, as given to `drivelab benches add` (DRIVELAB_BENCH)")
    p.add_argument("--token", default=os.environ.get("DRIVELAB_TOKEN"),
                   help="the bench's worker token that `drivelab benches add` printed "
                   "(DRIVELAB_TOKEN)")
    p.add_argument("--broker", default=os.environ.get("DRIVELAB_BROKER_URL")
                   or os.environ.get("DRIVELAB_REDIS_URL"),
                   help="the broker URL with its password, as `drivelab benches add` printed it; "
                   "127.0.0.1 is rewritten to the host as the guest sees it (DRIVELAB_BROKER_URL)")
    p.add_argument("--api", default=os.environ.get("DRIVELAB_API_URL", "http://127.0.0.1:8000"),
                   help="the api's URL on this host (default http://127.0.0.1:8000)")
    p.add_argument("--dir", type=Path, default=None,
                   help="where the drives' backing files, the console and the monitor socket go "
                   "(default: DATA_DIR/vm-bench/BENCH); not on tmpfs")
    p.add_argument("--accel", choices=("auto", "kvm", "tcg"), default="auto",
                   help="auto: KVM when a guest really runs with it here, else TCG (slow)")
    p.add_argument("--nvme-mib", type=int, nargs=2, default=(128, 64), metavar=("NS1", "NS2"),
                   help="sizes of the NVMe namespaces in MiB (default 128 64)")
    p.add_argument("--sata-mib", type=int, default=64, help="size of the SATA disk in MiB")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    missing = [n for n, v in (("--bench", args.bench), ("--token", args.token),
                              ("--broker", args.broker)) if not v]  # fmt: skip
    if missing:
        raise SystemExit(
            f"drivelab vm-bench needs {', '.join(missing)}: `drivelab benches add NAME` on the api "
            "host registers a bench and prints its token and broker URL"
        )
    if args.dir is None:
        from backend.core.settings import default_data_dir

        args.dir = default_data_dir() / "vm-bench" / args.bench
    vm = VmBench(
        VmBenchConfig(
            bench=args.bench, token=args.token, broker_url=args.broker, api_url=args.api,
            run_dir=args.dir, nvme_ns_mib=tuple(args.nvme_mib), sata_mib=args.sata_mib,
            accel=args.accel,
        )  # fmt: skip
    )
    stopping = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        if stopping.is_set():
            log.warning("second interrupt: killing the guest")
            vm.kill()
            raise SystemExit(130)
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        vm.start()
        log.info("guest booting under %s (TCG takes about a minute); console: %s",
                 (vm.accel or "").upper(), vm.run_dir / "console.log")
        while not stopping.is_set() and "devices ready" not in vm.guest_log():
            if not vm.alive():
                raise VmBenchError(f"the guest stopped while booting:\n{vm.console()[-3000:]}")
            stopping.wait(1)
        if not stopping.is_set():
            log.info(
                "bench %s is up: NVMe %s (namespaces 1 and 2), SATA %s; worker log %s; QEMU "
                "monitor %s. Ctrl-C stops it.", args.bench, SERIAL_NVME, SERIAL_SATA,
                vm.ctl / "worker.log", vm.run_dir / "monitor.sock",
            )  # fmt: skip
        while not stopping.is_set() and vm.alive():
            stopping.wait(1)
        if not vm.alive():
            log.error("the guest stopped; see %s", vm.ctl / "guest.log")
            return 1
        log.info("stopping the worker and the guest")
        vm.stop()
        return 0
    except VmBenchError as exc:
        vm.kill()
        raise SystemExit(str(exc)) from None
