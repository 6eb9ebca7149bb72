"""The plan catalog's building blocks: parameters, drive context, steps and fio job files.

A plan compiles on the server into concrete steps. Every fio step carries a complete job file
with every option spelled out, so any figure can be reproduced by hand with
`fio --output-format=json+ JOBFILE`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from backend.core.errors import InvalidParams

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}

# The options fio runs every step with; the worker adds nothing else.
FIO_ARGS = ("--output-format=json+", "--status-interval=1")


def fio_args(status_interval_ms: int = 1000) -> tuple[str, ...]:
    """FIO_ARGS, with a finer status interval for steps that ask for one (HD Tach passes)."""
    if status_interval_ms == 1000:
        return FIO_ARGS
    return ("--output-format=json+", f"--status-interval={int(status_interval_ms)}ms")


def parse_size(text: str) -> int:
    """A size in fio's syntax with its default kb_base=1024: `8g` is 8 GiB."""
    m = _SIZE_RE.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a size: use a number with k, m, g or t (8g = 8 GiB)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_size(n: int) -> str:
    """The shortest exact fio size for n bytes (`8g`, `1536m`, `4096`)."""
    for suffix in ("p", "t", "g", "m", "k"):
        unit = _UNITS[suffix]
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def human_bytes(n: int) -> str:
    for suffix, unit in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= unit:
            return f"{n / unit:.1f} {suffix}"
    return f"{n} B"


# Characters fio's job-file parser does not take literally in a value: `;` and `#` start a
# comment, `$` starts an expression or an environment variable (`${HOME}`, `$ncpus`) and `\`
# escapes the next character. `:` separates file names in `filename=` and is escaped there.
_FIO_UNSAFE = re.compile(r"[;#$\\\x00-\x1f\x7f]")


def target_path_problem(path: str) -> str | None:
    """Why `path` cannot name a drive's target, or None.

    A target is one absolute, normalised path that the interlock resolves and fio opens as is:
    no relative or `.`/`..` components (fio would read them relative to its working
    directory), nothing fio's job-file parser would read differently, no surrounding blanks."""
    if not path:
        return "it is empty"
    if path == "/":
        return "it is the root directory"
    if path != path.strip():
        return "it starts or ends with a blank"
    bad = _FIO_UNSAFE.search(path)
    if bad:
        char = bad.group(0)
        shown = repr(char) if char.isprintable() else f"control character {ord(char):#04x}"
        return f"it contains {shown}, which fio's job files cannot carry"
    # Line and paragraph separators, C1 controls, invisible format characters: a program that
    # reads the job file as Unicode lines (Python's splitlines) would cut the value in two,
    # and what follows the cut would be read as an option of its own (exec_prerun=...).
    odd = next((c for c in path if not c.isprintable() and c != " "), None)
    if odd is not None:
        name = unicodedata.name(odd, "a control character")
        return f"it contains U+{ord(odd):04X} ({name.lower()}), which is not a printable character"
    if not path.startswith("/"):
        return "it is relative: give the absolute path (e.g. /dev/disk/by-id/...)"
    parts = path.split("/")[1:]
    if path != "/" and path.endswith("/"):
        return "it ends with /"
    if "" in parts:
        return "it contains //"
    if "." in parts or ".." in parts:
        return "it contains . or .. components: give the path without them"
    return None


def fio_filename(path: str) -> str:
    """`path` as the value of fio's `filename=`, which splits file names on `:` unless it is
    escaped (`/dev/disk/by-path/pci-0000\\:00\\:05.0`)."""
    return path.replace(":", "\\:")


def job_file_lines(job_file: str) -> list[str]:
    """A job file's lines as fio reads them: split at "\n" only (str.splitlines also splits at
    U+2028, U+0085 and others, which fio takes as part of a value)."""
    return job_file.split("\n")


def retarget_job_file(job_file: str, path: str) -> str:
    """The job file with its target (`filename=` and a trace replay's `replay_redirect=`) set to
    `path`: the worker runs fio on exactly the path its interlock resolved and checked."""
    lines = []
    for line in job_file_lines(job_file):
        if line.startswith("filename="):
            line = f"filename={fio_filename(path)}"
        elif line.startswith("replay_redirect="):
            line = f"replay_redirect={path}"
        lines.append(line)
    return "\n".join(lines)


def with_randseed_offset(job_file: str, k: int) -> str:
    """Round k+1 of a steady-state loop runs with randseed + k, so rounds do not repeat the same
    offsets (the job file stored with the run holds the first round's seed)."""
    lines = []
    for line in job_file_lines(job_file):
        if line.startswith("randseed="):
            line = f"randseed={int(line.split('=', 1)[1]) + k}"
        lines.append(line)
    out = "\n".join(lines)
    return out if out.endswith("\n") else out + "\n"


JOB_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def with_point(job_file: str, name: str, tc: int, qd: int) -> str:
    """A demand-intensity point run's job file (SNIA PTS DIRTH, backend.plans.pts_dirth): the
    step's one-section job file with that section named after the point (`tc4-qd8`: fio's
    output then names its jobs as the sweep's do) and its `numjobs` and `iodepth` set to the
    point's. The point is chosen by the api after the sweep, so the step carries the job file
    at the sweep's largest TC x QD, which fio checked with the run's others; [global] is left
    as it is. The name comes from the api's answer: one that is not a plain job name (it could
    end the section and add options, a filename among them) is refused."""
    if not JOB_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a job name (letters, digits, '.', '_', '-')")
    lines = []
    in_job = False
    for line in job_file_lines(job_file):
        if line.startswith("[") and line.strip().endswith("]"):
            in_job = line.strip() != "[global]"
            if in_job:
                line = f"[{name}]"
        elif in_job and line.startswith("numjobs="):
            line = f"numjobs={int(tc)}"
        elif in_job and line.startswith("iodepth="):
            line = f"iodepth={int(qd)}"
        lines.append(line)
    return "\n".join(lines)


def job_files_as_run(
    name: str, kind: str, params: dict[str, Any], job_file: str
) -> list[tuple[str, str]]:
    """(name, job file) of what fio will be given for a step: its job file, and for a
    steady-state loop that moves the seed every round, its last round's too (the seed fio is
    given grows with the rounds, and fio refuses one past 2^63 - 1)."""
    out = [(name, job_file)]
    if kind == "file-copy":  # its sources and both copies, each a job file of its own
        out = [(f"{name} (sources)", params["sources_job_file"])]
        out += [(f"{name} ({k})", v) for k, v in params["copy_job_files"].items()]
    rounds = int(params.get("max_rounds") or 1)
    if kind == "fio-rounds" and params.get("randseed_per_round") and rounds > 1:
        out.append((f"{name} (round {rounds})", with_randseed_offset(job_file, rounds - 1)))
    return out


def job_file_target(job_file: str) -> str | None:
    """The path a job file's `filename=` names (unescaped), None without one."""
    for line in job_file_lines(job_file):
        if line.startswith("filename="):
            return line.split("=", 1)[1].replace("\\:", ":")
    return None


@dataclass(frozen=True)
class DriveContext:
    """What a plan needs to know about the target when it compiles."""

    target_path: str
    capacity_bytes: int
    serial: str
    logical_sector: int = 512


@dataclass
class StepSpec:
    kind: str  # fio | fio-rounds | fio-points | purge | trim | idle | write-cache | file-copy
    name: str
    estimate_s: float
    params: dict[str, Any] = field(default_factory=dict)
    job_file: str | None = None


class PlanParams(BaseModel):
    """Base of every plan's parameters: unknown names are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class Plan:
    key: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    destructive: ClassVar[bool] = True
    Params: ClassVar[type[PlanParams]]

    def compile(self, params: Any, drive: DriveContext) -> list[StepSpec]:
        raise NotImplementedError

    def notes(self, params: Any, drive: DriveContext) -> list[str]:
        """What the plan leaves out or qualifies on this drive (e.g. a transfer size below the
        logical sector); compile also records them on the first step as `notes`."""
        return []

    def params_schema(self) -> dict[str, Any]:
        """The params' JSON schema, with the defaults of list fields (a default_factory, which
        pydantic leaves out) written in, so a form can start from every review default."""
        schema = self.Params.model_json_schema()
        for name, info in self.Params.model_fields.items():
            prop = schema.get("properties", {}).get(name)
            if prop is not None and "default" not in prop and info.default_factory is not None:
                prop["default"] = info.default_factory()  # type: ignore[call-arg]
        return schema


def span_bytes(span: str | None, drive: DriveContext, name: str = "span") -> int:
    """Resolve a span parameter against the drive: None means the whole drive."""
    if span is None:
        return drive.capacity_bytes
    n = parse_size(span)
    if n > drive.capacity_bytes:
        raise InvalidParams(
            f"{name} {span} ({human_bytes(n)}) is larger than the drive "
            f"({human_bytes(drive.capacity_bytes)}): choose a smaller {name}",
            field=name,
        )
    if n < 1024 * 1024:
        raise InvalidParams(f"{name} {span} is below 1 MiB: choose a larger {name}", field=name)
    return n


def fio_job_file(
    title: str, global_opts: dict[str, Any], job_name: str, job_opts: dict[str, Any]
) -> str:
    """Render a fio job file: a comment, a [global] section and one job section."""
    return fio_job_sections(title, global_opts, [(job_name, job_opts)])


def fio_job_sections(
    title: str, global_opts: dict[str, Any], sections: list[tuple[str, dict[str, Any]]]
) -> str:
    """Render a fio job file with several job sections, in order (a PTS round: one
    stonewalled section per element)."""
    lines = [f"; drivelab: {title}", "[global]"]
    lines += [_opt(k, v) for k, v in global_opts.items() if v is not None]
    for name, opts in sections:
        lines += ["", f"[{name}]"]
        lines += [_opt(k, v) for k, v in opts.items() if v is not None]
    return "\n".join(lines) + "\n"


def _opt(key: str, value: Any) -> str:
    if value is True:
        return f"{key}=1"
    if value is False:
        return f"{key}=0"
    return f"{key}={value}"
