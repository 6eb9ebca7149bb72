"""The virtual bench's pieces that need no guest: URLs as the guest reaches the host, the
order modules load in, the initramfs archive. tests/e2e/test_vmbench*.py boot the guest."""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

from worker.vmbench import Kernel, _cpio, _load_order, build_initramfs, guest_url


def test_the_hosts_loopback_becomes_qemus_host_address() -> None:
    assert guest_url("http://127.0.0.1:8000") == "http://10.0.2.2:8000"
    assert guest_url("redis://:pw@127.0.0.1:6379/0") == "redis://:pw@10.0.2.2:6379/0"
    assert guest_url("redis://:pw@localhost:6380/2") == "redis://:pw@10.0.2.2:6380/2"
    assert guest_url("https://lab.example:8443") == "https://lab.example:8443"


def test_modules_load_after_what_they_need(tmp_path: Path) -> None:
    (tmp_path / "modules.dep").write_text(
        "kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/netfs/netfs.ko\n"
        "kernel/net/9p/9pnet.ko:\n"
        "kernel/fs/netfs/netfs.ko:\n"
        "kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko "
        "kernel/drivers/virtio/virtio_ring.ko\n"
        "kernel/drivers/virtio/virtio_ring.ko:\n"
    )
    order = _load_order(tmp_path, ("9pnet_virtio", "9p", "virtio_pci"))  # virtio_pci: built in
    assert order == [
        "kernel/drivers/virtio/virtio_ring.ko",
        "kernel/net/9p/9pnet.ko",
        "kernel/net/9p/9pnet_virtio.ko",
        "kernel/fs/netfs/netfs.ko",
        "kernel/fs/9p/9p.ko",
    ]


@pytest.mark.skipif(not shutil.which("busybox"), reason="busybox is missing (make vm-tools)")
def test_the_archive_is_a_newc_cpio_that_cpio_reads() -> None:
    entries = [("bin", 0o040755, b""), ("bin/x", 0o100755, b"#!/bin/sh\n"), ("y", 0o100644, b"")]
    listing = subprocess.run(
        ["busybox", "cpio", "-t"], input=_cpio(entries), capture_output=True, check=True
    ).stdout.decode()
    assert listing.split() == ["bin", "bin/x", "y"]


def test_the_initramfs_holds_busybox_init_and_the_root_modules(tmp_path: Path) -> None:
    if not shutil.which("busybox"):
        pytest.skip("busybox is not installed (make vm-tools)")
    modules = tmp_path / "lib" / "modules" / "1.0"
    (modules / "kernel").mkdir(parents=True)
    (modules / "kernel" / "9p.ko").write_bytes(b"\x7fELF fake")
    (modules / "modules.dep").write_text("kernel/9p.ko:\n")
    image = build_initramfs(Kernel(tmp_path / "vmlinuz", "1.0", modules), tmp_path / "i.gz")
    archive = gzip.decompress(image.read_bytes())
    for name in (b"init\0", b"bin/busybox\0", b"modules/9p.ko\0", b"modules/order\0"):
        assert name in archive
    assert b"switch_root /newroot" in archive and b"\x7fELF fake" in archive


def test_a_checkout_under_tmp_stays_visible_in_the_guest() -> None:
    """The guest covers /tmp with tmpfs: a project there (a CI checkout) and its .venv are
    held by a bind mount and put back; one elsewhere needs nothing."""
    from pathlib import Path

    from worker.vmbench import keep_visible

    hold, back = keep_visible([Path("/tmp/ci/drivelab"), Path("/tmp/ci/drivelab/.venv")])
    assert (
        hold
        == "mkdir -p /dev/.drivelab-keep-1 && mount --bind /tmp/ci/drivelab /dev/.drivelab-keep-1"
    )
    assert (
        back == "mkdir -p /tmp/ci/drivelab && mount --bind /dev/.drivelab-keep-1 /tmp/ci/drivelab"
    )
    assert keep_visible([Path("/work/drivelab"), Path("/work/drivelab/.venv")]) == (":", ":")
    hold, back = keep_visible([Path("/work/drivelab"), Path("/var/lib/venvs/drivelab")])
    assert hold.count("mount --bind") == 1 and "/var/lib/venvs/drivelab" in back
