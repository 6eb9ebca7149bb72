"""A file copy through a filesystem, before and after deletions (PC Perspective's File Copy
Test, which showed drives that stand still for seconds after files were deleted).

    purge (optional); then one `file-copy` step that the worker runs in a mount namespace of
    its own (worker.steps.file_copy): mkfs.ext4 on the held device, mounted with online
    discard (`-o discard`: every deletion sends its TRIMs to the drive when the journal
    commits); the source files written (fio, sequential 1 MiB, incompressible, fsync at the
    end); copy 1 (fio: a reader of the source files and a writer of new destination files,
    concurrently); `delete` bytes of copy 1's files deleted by the worker (unlink, then syncfs
    so the journal commits and the discards are sent); copy 2, the same as copy 1 to new files;
    the filesystem unmounted.

What equals a file copy and what does not:
- the source files are written to the filesystem first (not from RAM): a copy reads them from
  the drive as Explorer's or cp's does, and they sit where the filesystem put them;
- a copy is two fio jobs started together, a reader of the source files and a writer of the
  destination files, each 1 MiB at queue depth 4 (what copy tools keep in flight), with direct
  I/O, so the page cache neither absorbs the writes nor serves the reads: the throughput is the
  drive's. Unlike cp the two are not coupled through a buffer: the writer does not wait for the
  reader (a copy from another drive would not either), so the copy's throughput is the
  writer's, and the reader is the load a same-drive copy adds. The writer fsyncs at its end,
  so its last second counts the flush;
- files are written without fallocate (as a copy extends a file) and one after another;
- the filesystem is ext4 made with no initial discard, its inode tables and journal not zeroed
  (at mkfs or later: mounted `noinit_itable`, so no lazy init writes behind the copy).

The copy's throughput is from fio's status snapshots every 100 ms (exact cumulative bytes);
standstills are found in them (backend.analysis.file_copy).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from backend.plans.base import (
    DriveContext,
    Plan,
    StepSpec,
    fio_job_sections,
    format_size,
    human_bytes,
    parse_size,
)
from backend.plans.common import (
    ASSUMED_BPS,
    INCOMPRESSIBLE,
    FioParams,
    MiB,
    SizeText,
    invalid,
    purge_step,
    with_notes,
)

GiB = 1024**3
# PCPer's test: a set of large files (about 10 GB) copied, about 10 GB of them deleted.
PCPER_COPY_BYTES = 10 * GiB
# The copy may take at most this share of the drive: sources, copy 1 and copy 2 must fit
# together (3 x 0.28 = 84%) with the filesystem's own room.
MAX_COPY_SHARE = 0.28
MOUNT_POINT = "/dev/drivelab-fs"  # worker.fio.pin.FS_MOUNT_POINT (a private /dev's directory)
STATUS_INTERVAL_MS = 100
COPY_IODEPTH = 4
# No discard at mkfs (the purge did it); inode tables and journal left as mkfs found them and
# not zeroed later either (`noinit_itable`): zeroing them writes about 1.6% of the drive (32 GB
# of a 2 TB one) before the copy, or behind it from the kernel's lazy init thread.
MKFS_OPTIONS = ("-F", "-q", "-E", "nodiscard,lazy_itable_init=1,lazy_journal_init=1")
MOUNT_OPTIONS = "discard,noinit_itable"
MKFS_ESTIMATE_S = 5.0
DEFAULT_FILE_BYTES = GiB
# A copy has at least this many files by default: a small drive gets smaller files, not one.
MIN_DEFAULT_FILES = 8
ROLE = "file-copy"


class FileCopyParams(FioParams):
    file_size: SizeText | None = Field(
        None,
        description="Size of each file copied (fio size syntax, 1g = 1 GiB); empty: 1 GiB, or "
        f"on a drive whose {MAX_COPY_SHARE:.0%} holds fewer than {MIN_DEFAULT_FILES} of them, "
        f"files of a {MIN_DEFAULT_FILES}th of it (whole MiB).",
    )
    copy_size: SizeText | None = Field(
        None,
        description="Bytes copied each time, a whole number of files; empty: PCPer's 10 GiB, "
        f"at most {MAX_COPY_SHARE:.0%} of the drive (rounded down to whole files).",
    )
    delete_size: SizeText | None = Field(
        None,
        description="Bytes of copy 1's files deleted before copy 2, whole files; empty: all of "
        "copy 1 (PCPer deleted about 10 GB).",
    )
    purge: bool = Field(True, description="Purge first, so every run starts from an empty drive.")


def file_names(prefix: str, count: int) -> list[str]:
    """The files fio makes for `prefix` (filename_format=PREFIX.$filenum), in order."""
    return [f"{prefix}.{i}" for i in range(count)]


class FileCopy(Plan):
    key = "file-copy"
    title = "File copy: a copy through ext4, repeated after deletions (PCPer's File Copy Test)"
    description = (
        "Makes an ext4 filesystem on the drive, mounted with online discard, writes a set of "
        "large files, copies them, deletes about 10 GB of the copies (the deletions send "
        "TRIMs) and copies again. Reports the copy throughput every 100 ms and the copy's "
        "standstills (when, how long, how many) before and after the deletions (PC "
        "Perspective's File Copy Test)."
    )
    destructive = True
    Params = FileCopyParams

    def sizes(self, params: FileCopyParams, drive: DriveContext) -> tuple[int, int, int]:
        """(file size, files per copy, files deleted), checked against the drive."""
        cap = int(drive.capacity_bytes * MAX_COPY_SHARE)
        if params.file_size is None:
            size = min(DEFAULT_FILE_BYTES, max(MiB, cap // MIN_DEFAULT_FILES // MiB * MiB))
        else:
            size = parse_size(params.file_size)
        if size < MiB or size % MiB:
            raise invalid("file_size", f"{params.file_size} is not a whole number of MiB (1g)")
        if params.copy_size is None:
            files = min(PCPER_COPY_BYTES, cap) // size
            if files < 1:
                raise invalid(
                    "file_size",
                    f"{params.file_size or human_bytes(size)} is larger than "
                    f"{MAX_COPY_SHARE:.0%} of the drive ({human_bytes(cap)}): choose smaller files",
                )
        else:
            copy = parse_size(params.copy_size)
            if copy < size or copy % size:
                raise invalid(
                    "copy_size",
                    f"{params.copy_size} is not a whole number of files of "
                    f"{params.file_size or human_bytes(size)}",
                )
            if copy > cap:
                raise invalid(
                    "copy_size",
                    f"{params.copy_size} ({human_bytes(copy)}) is more than {MAX_COPY_SHARE:.0%} "
                    f"of the drive ({human_bytes(cap)}): the sources and both copies must fit",
                )
            files = copy // size
        if params.delete_size is None:
            deleted = files
        else:
            gone = parse_size(params.delete_size)
            if gone < size or gone % size or gone > files * size:
                raise invalid(
                    "delete_size",
                    f"{params.delete_size} is not a whole number of files of "
                    f"{params.file_size or human_bytes(size)} "
                    f"between 1 and {files} files ({human_bytes(files * size)})",
                )
            deleted = gone // size
        return size, files, deleted

    def notes(self, params: FileCopyParams, drive: DriveContext) -> list[str]:
        size, files, deleted = self.sizes(params, drive)
        notes = [
            "standstills are seen to 0.1 s (fio's status every 100 ms); one shorter than 0.3 s "
            "is counted apart, as fio's own pauses on a busy host are that short",
            "the copy is a reader and a writer at once, not coupled through a buffer: a read "
            "that stalls does not hold the writes up as it would in cp",
        ]
        if params.copy_size is None and files * size < PCPER_COPY_BYTES:
            notes.append(
                f"the copy is {human_bytes(files * size)}, not PCPer's 10 GiB: it is capped "
                f"to {MAX_COPY_SHARE:.0%} of the drive"
            )
        if not params.purge:
            notes.append("no purge: the filesystem is made over whatever the drive held")
        return notes

    def compile(self, params: FileCopyParams, drive: DriveContext) -> list[StepSpec]:
        size, files, deleted = self.sizes(params, drive)
        total = size * files
        common = {
            "directory": MOUNT_POINT,
            "ioengine": params.ioengine,
            "direct": True,
            "bs": "1m",
            "randseed": params.randseed,
            "kb_base": 1024,
            "fallocate": "none",
            "file_service_type": "sequential",
            "nrfiles": files,
            "size": format_size(total),
        }
        sources = fio_job_sections(
            f"{self.key} / write the source files", common,
            [("sources", {"rw": "write", "iodepth": 8, "filename_format": "src.$filenum",
                          "end_fsync": True, **INCOMPRESSIBLE})],
        )  # fmt: skip
        copies = {name: copy_job(self.key, common, name) for name in ("copy-1", "copy-2")}
        estimate = MKFS_ESTIMATE_S + 3 * total / ASSUMED_BPS
        label = (
            f"ext4, {files} files of {human_bytes(size)} copied, {deleted} of the copies "
            f"({human_bytes(deleted * size)}) deleted, copied again"
        )
        step = StepSpec(
            kind="file-copy",
            name="file-copy",
            estimate_s=estimate,
            params={
                "label": label,
                "role": ROLE,
                "fs": "ext4",
                "mkfs_options": list(MKFS_OPTIONS),
                "mount_options": MOUNT_OPTIONS,
                "file_bytes": size,
                "files": files,
                "copy_bytes": total,
                "deleted_files": file_names("copy-1", files)[:deleted],
                "delete_bytes": deleted * size,
                "sources_job_file": sources,
                "copy_job_files": copies,
                "status_interval_ms": STATUS_INTERVAL_MS,
            },
            job_file=copies["copy-1"],
        )
        steps = ([purge_step()] if params.purge else []) + [step]
        return with_notes(steps, self.notes(params, drive))


def copy_job(plan_key: str, common: dict[str, Any], name: str) -> str:
    """One copy: the reader of the source files and the writer of `name`'s files, together."""
    return fio_job_sections(
        f"{plan_key} / {name}: read the source files, write new copies of them",
        common,
        [
            ("read", {"rw": "read", "iodepth": COPY_IODEPTH, "filename_format": "src.$filenum"}),
            ("write", {"rw": "write", "iodepth": COPY_IODEPTH,
                       "filename_format": f"{name}.$filenum", "end_fsync": True,
                       **INCOMPRESSIBLE}),
        ],
    )  # fmt: skip
