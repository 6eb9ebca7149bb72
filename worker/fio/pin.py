"""fio opens exactly the device or file the interlock checked, in every section of its run.

fio opens `filename=` again at the start of every section of a job file (a PTS round has
dozens, pts-iops 56), following whatever the name means at that moment: a name checked once
before fio starts can mean another device by the next section (a sandbox file replaced by a
symlink to /dev/sdX, a device node re-made with another major:minor, a directory renamed, a
bind mount over the name). So the worker never gives fio a name that anyone else can change:
it hands fio the descriptor it holds open and checked (worker.guard.HeldTarget), in one of
two ways:

- **namespace** (root, the usual case on a lab bench): fio starts in a mount namespace of its
  own, in which `/dev` is a small private tmpfs (the host's `/dev` is a mount point, so nobody
  outside can rename or remove the directory the private one covers). The held descriptor is
  bind-mounted there at the kernel's own name of the device (`/dev/loop4`, `/dev/nvme0n1`), or
  at `/dev/drivelab/<name>` for a file in the sandbox. The job file fio runs names exactly that
  path, so a block device's job file is the one stored with the run, character for character,
  and fio still finds the device for its disk statistics (`disk_util`). Nothing done outside
  the namespace changes what the name means inside it.
- **descriptor** (no privilege to make a mount namespace): `filename=/proc/self/fd/N`, the held
  descriptor passed to fio. Opening it reopens the same inode whatever its old name means now.
  fio then cannot map the name to a device, so it reports no `disk_util` (a trace replay's busy
  time is missing, said as missing).

Run as `python worker/fio/pin.py --bind FD=PATH ... -- fio ARGS`: it makes the namespace,
binds each descriptor at its path, checks that the path now leads to the descriptor's own
device or inode, and becomes fio. It never falls back silently: any failure exits with status
PIN_FAILED and a message on stderr, before fio starts.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass

PIN_FAILED = 97  # exit status of a pin that could not be made; fio did not start

CLONE_NEWNS = 0x00020000
# open_tree(2) and move_mount(2) (Linux 5.2), the same numbers on every architecture.
SYS_OPEN_TREE = 428
SYS_MOVE_MOUNT = 429
OPEN_TREE_CLONE = 0x1
AT_EMPTY_PATH = 0x1000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
MS_NOSUID = 0x2
MS_NOEXEC = 0x8
MS_REC = 0x4000
MS_PRIVATE = 0x40000

# Nodes of the host's /dev that programs expect (fio reads /dev/urandom for its seeds).
DEV_NODES = ("null", "zero", "full", "random", "urandom")
DEV_LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1"}
FILES_DIR = "/dev/drivelab"
# Where a filesystem made on the held device is mounted (worker.steps.file_copy): a directory of
# the private /dev, so the mount exists only in the namespace and goes away with it.
FS_MOUNT_POINT = "/dev/drivelab-fs"
MS_NODEV = 0x4
MNT_DETACH = 0x2
# A filesystem was to be made and mounted and could not be (the keeper's exit status).
FS_FAILED = 96


@dataclass(frozen=True)
class Pin:
    """The descriptor `fd` that fio must open, under the name `path` its job file gives."""

    fd: int
    path: str


def fio_name(fd: int, *, kind: str, kernel_name: str, file_name: str, namespace: bool) -> str:
    """The name fio is given for the held descriptor `fd` (see the module's docstring)."""
    if not namespace:
        return f"/proc/self/fd/{fd}"
    if kind == "block":
        return "/dev/" + kernel_name.replace("!", "/")
    return f"{FILES_DIR}/{os.path.basename(file_name)}"


def argv_prefix(pins: list[Pin], *, namespace: bool) -> list[str]:
    """What goes before fio's own command: the pin helper in namespace mode, nothing else."""
    if not namespace or not pins:
        return []
    binds = [arg for pin in pins for arg in ("--bind", f"{pin.fd}={pin.path}")]
    # Run as a script of the standard library alone (-I -S: no site, no environment), so the
    # pin costs fio's start as little as a Python can.
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), *binds, "--"]


def _script() -> list[str]:
    return [sys.executable, "-I", "-S", os.path.abspath(__file__)]


def keeper_argv(pin: Pin, fstype: str, mkfs_options: list[str], mount_options: str) -> list[str]:
    """The command of a namespace keeper (worker.steps.file_copy): the held block device pinned
    at its kernel name as for fio, a filesystem made on exactly that name (`mkfs.FSTYPE`) and
    mounted at FS_MOUNT_POINT with `mount_options`, all inside a mount namespace of its own. It
    prints "ready" once mounted, then waits for its stdin to close, unmounts and exits. The
    mount lives only in that namespace: when the keeper and every process that joined it end
    (a crashed worker closes the keeper's stdin; a killed keeper ends it anyway), the kernel
    unmounts it, and the host never had it in its mount table."""
    return [
        *_script(),
        "--bind",
        f"{pin.fd}={pin.path}",
        "--keep-fs",
        fstype,
        "--mount-options",
        mount_options,
        *[f"--mkfs-option={o}" for o in mkfs_options],
        "--",
        pin.path,
    ]


def join_prefix(ns_fd: int) -> list[str]:
    """What goes before a command that must run in a keeper's namespace (`ns_fd`: the worker's
    descriptor of /proc/KEEPER/ns/mnt, passed to the command): it enters the namespace, goes
    back to its working directory and becomes the command."""
    return [*_script(), "--join", str(ns_fd), "--"]


@functools.cache
def namespace_available() -> bool:
    """Whether this worker can start fio in a mount namespace of its own (root, and a kernel
    and container that allow it): tried once, with a pin of /dev/null running `true`."""
    if os.geteuid() != 0:
        return False
    fd = os.open("/dev/null", os.O_RDONLY)
    try:
        probe = subprocess.run(
            [*argv_prefix([Pin(fd, "/dev/drivelab/probe")], namespace=True), "true"],
            pass_fds=(fd,),
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        os.close(fd)
    return probe.returncode == 0


# --- inside the child, before fio --------------------------------------------------------


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    libc = _libc()
    _check(
        libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _clone(fd: int, what: str) -> int:
    """A detached bind mount of what `fd` is open on (open_tree with OPEN_TREE_CLONE). Made
    before the namespace: a mount of the host's namespace cannot be bound from inside another
    one, but a detached copy can be attached there."""
    tree = _libc().syscall(SYS_OPEN_TREE, fd, b"", OPEN_TREE_CLONE | AT_EMPTY_PATH | os.O_CLOEXEC)
    if tree < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"open_tree({what}): {os.strerror(err)}")
    return int(tree)


def _attach(tree: int, path: str) -> None:
    at_fdcwd = -100
    result = _libc().syscall(
        SYS_MOVE_MOUNT, tree, b"", at_fdcwd, path.encode(), MOVE_MOUNT_F_EMPTY_PATH
    )
    _check(int(result), f"move_mount to {path}")


def _same_object(a: os.stat_result, b: os.stat_result) -> bool:
    if stat.S_ISBLK(a.st_mode) or stat.S_ISBLK(b.st_mode):
        return stat.S_ISBLK(a.st_mode) and stat.S_ISBLK(b.st_mode) and a.st_rdev == b.st_rdev
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def pin(pins: list[Pin]) -> None:
    """In this process: a mount namespace of its own, a private /dev, each pin bound at its
    path and checked. Raises OSError or RuntimeError when any of it fails."""
    for p in pins:
        if not p.path.startswith("/dev/") or ".." in p.path.split("/"):
            raise RuntimeError(f"{p.path!r} is not a name under the private /dev")
    trees: list[tuple[int, str]] = []
    for name in DEV_NODES:
        try:
            node = os.open(f"/dev/{name}", os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # a /dev without it (a minimal container): fio does without
        trees.append((_clone(node, f"/dev/{name}"), f"/dev/{name}"))
        os.close(node)
    trees += [(_clone(p.fd, f"descriptor {p.fd}"), p.path) for p in pins]
    _check(_libc().unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # Nothing mounted here reaches the host, and nothing mounted there later reaches here.
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("drivelab-fio", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for tree, path in trees:
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "x"):
            pass
        _attach(tree, path)
        os.close(tree)
    for name, where in DEV_LINKS.items():
        os.symlink(where, f"/dev/{name}")
    for p in pins:
        if not _same_object(os.stat(p.path), os.fstat(p.fd)):
            raise RuntimeError(f"{p.path} does not lead to descriptor {p.fd} after binding it")
        os.close(p.fd)  # the bind mount holds the object now


def _setns(fd: int) -> None:
    _check(_libc().setns(fd, CLONE_NEWNS), "setns(CLONE_NEWNS)")


def join(ns_fd: int, command: list[str]) -> None:
    """Enter the namespace `ns_fd` (a keeper's), keep the working directory, become `command`."""
    cwd = os.getcwd()
    try:
        _setns(ns_fd)
        os.close(ns_fd)
        os.chdir(cwd)
    except OSError as exc:
        print(f"drivelab: cannot enter the filesystem's namespace: {exc}", file=sys.stderr)
        sys.exit(PIN_FAILED)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"drivelab: cannot start {command[0]}: {exc.strerror}", file=sys.stderr)
        sys.exit(PIN_FAILED)


def keep_fs(device: str, fstype: str, mkfs_options: list[str], mount_options: str) -> None:
    """In a namespace made by `pin`: make the filesystem on `device` (the pinned name), mount
    it at FS_MOUNT_POINT, say "ready", wait for stdin to close, unmount (see keeper_argv)."""
    if not stat.S_ISBLK(os.stat(device).st_mode):
        raise RuntimeError(f"{device} is not a block device")
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    binary = shutil.which(f"mkfs.{fstype}", path=path)
    if binary is None:
        raise RuntimeError(f"mkfs.{fstype} is not installed on this bench")
    mkfs = subprocess.run(
        [binary, *mkfs_options, device],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if mkfs.returncode != 0:
        raise RuntimeError(
            f"mkfs.{fstype} {device} exited with status {mkfs.returncode}: "
            f"{(mkfs.stderr or mkfs.stdout).strip()[-500:]}"
        )
    os.makedirs(FS_MOUNT_POINT, mode=0o755)
    _mount(device, FS_MOUNT_POINT, fstype, MS_NOSUID | MS_NODEV, mount_options)
    print("ready", flush=True)
    while os.read(0, 4096):
        pass
    # Anything still open there (it should not be) is detached: it goes with the namespace.
    if _libc().umount2(FS_MOUNT_POINT.encode(), 0) != 0:
        err = ctypes.get_errno()
        _libc().umount2(FS_MOUNT_POINT.encode(), MNT_DETACH)
        print(f"drivelab: unmounting {device}: {os.strerror(err)}", file=sys.stderr)
        sys.exit(FS_FAILED)


def _parse(argv: list[str]) -> tuple[list[Pin], list[str], argparse.Namespace]:
    parser = argparse.ArgumentParser(
        prog="python worker/fio/pin.py",
        description="Start a command (fio) in a mount namespace of its own where each held "
        "descriptor FD is bound at PATH under a private /dev.",
    )
    parser.add_argument("--bind", action="append", default=[], metavar="FD=PATH")
    parser.add_argument("--join", type=int, metavar="NSFD")
    parser.add_argument("--keep-fs", metavar="FSTYPE")
    parser.add_argument("--mkfs-option", action="append", default=[])
    parser.add_argument("--mount-options", default="")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run after --")
    pins = []
    for spec in args.bind:
        fd, sep, path = spec.partition("=")
        if not sep or not fd.isdigit() or not path:
            parser.error(f"--bind {spec!r}: expected FD=PATH")
        pins.append(Pin(int(fd), path))
    return pins, command, args


def main(argv: list[str] | None = None) -> None:
    pins, command, args = _parse(sys.argv[1:] if argv is None else argv)
    if args.join is not None:
        join(args.join, command)
        return
    try:
        pin(pins)
    except (OSError, RuntimeError) as exc:
        print(f"drivelab: cannot pin fio's target, fio was not started: {exc}", file=sys.stderr)
        sys.exit(PIN_FAILED)
    if args.keep_fs:
        if len(command) != 1 or command[0] not in {p.path for p in pins}:
            print("drivelab: --keep-fs takes one pinned device after --", file=sys.stderr)
            sys.exit(PIN_FAILED)
        try:
            keep_fs(command[0], args.keep_fs, args.mkfs_option, args.mount_options)
        except (OSError, RuntimeError) as exc:
            print(f"drivelab: {exc}", file=sys.stderr)
            sys.exit(FS_FAILED)
        return
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"drivelab: cannot start {command[0]}: {exc.strerror}", file=sys.stderr)
        sys.exit(PIN_FAILED)


if __name__ == "__main__":
    main()
