"""Results files: every figure in the docs comes from a file that a benchmark script wrote itself.

A benchmark script declares the flag with :func:`add_results_flag` and ends its ``__main__``
block with :func:`write_results`. Run with ``--write-results [NAME]``, everything the script prints
on stdout is also captured, and :func:`write_results` writes it to ``benchmarks/results/NAME.md``
(``NAME`` defaults to the script's file name) together with what a reader needs to judge and
reproduce the figures: the exact command, the git commit and whether tracked files differed from
it, the machine (CPUs, memory, CPU model), the load average at the start and at the end, the date,
the wall time and the exit status. Without the flag nothing changes. The command recorded is the
process's own (``sys.argv``), so a script records itself correctly when run from the shell.

Why this shape: the capture starts while ``parse_args`` reads the flag (an argparse action), so a
script gains two lines instead of having its body re-indented under a context manager; and a run
that raises never reaches :func:`write_results`, so a failed run cannot overwrite a results file. No
number in the docs is typed by hand: to refresh one, rerun the command at the top of its file.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO, overload

REPO = Path(__file__).resolve().parents[2]
RESULTS_DIR = REPO / "benchmarks" / "results"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class _Tee(io.TextIOBase):
    """A text stream that forwards to ``stream`` and keeps a copy of everything written."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding


@dataclass
class _Recording:
    name: str
    markdown: bool
    command: str
    tee: _Tee
    started: float = field(default_factory=time.monotonic)
    date: str = field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    load_start: float = field(default_factory=lambda: os.getloadavg()[0])


_active: _Recording | None = None


def add_results_flag(parser: argparse.ArgumentParser, markdown: bool = False) -> None:
    """Add ``--write-results [NAME]`` to ``parser``.

    ``markdown``: the script prints Markdown (tables, headings), copied into the results file as
    is; otherwise its output goes into a fenced block, which keeps aligned columns aligned.
    """
    parser.add_argument("--write-results", nargs="?", metavar="NAME", action=_StartRecording,
                        const=Path(sys.argv[0]).stem, markdown=markdown,
                        help="also write what this prints, with the command, commit, machine and load, to "
                             "benchmarks/results/NAME.md (default NAME: the script's name)")


class _StartRecording(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, markdown: bool = False, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.markdown = markdown

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if not isinstance(values, str) or not _NAME.fullmatch(values):
            parser.error(f"--write-results NAME must be a file stem such as {self.const!r} "
                         f"(letters, digits, '_', '-', '.'), got {values!r}")
        setattr(namespace, self.dest, values)
        start(values, self.markdown)


def start(name: str, markdown: bool = False) -> None:
    """Start capturing stdout for ``benchmarks/results/NAME.md`` (called by the flag's action)."""
    global _active
    if _active is not None:  # a second parse in the same process: the later one wins
        sys.stdout = _active.tee.stream
    tee = _Tee(sys.stdout)
    _active = _Recording(name, markdown, _command_line(), tee)
    sys.stdout = tee


@overload
def write_results(status: int) -> int: ...
@overload
def write_results(status: None = None) -> None: ...
def write_results(status: int | None = None) -> int | None:
    """Write the results file of the recording in progress, if any; returns ``status`` unchanged.

    Call it after ``main()`` returned (``sys.exit(write_results(main()))``); ``status`` is the
    exit status recorded in the file (``None`` counts as 0).
    """
    global _active
    recording, _active = _active, None
    if recording is None:
        return status
    sys.stdout = recording.tee.stream
    path = RESULTS_DIR / f"{recording.name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(recording, status or 0))
    print(f"wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return status


def render(recording: _Recording, status: int) -> str:
    """The results file: provenance table, then the script's output."""
    seconds = time.monotonic() - recording.started
    output = recording.tee.copy.getvalue().strip("\n")
    body = output if recording.markdown else f"```text\n{output}\n```"
    rows = [
        ("command", f"`{recording.command}`"),
        ("commit", _commit()),
        ("date", f"{recording.date}, {seconds:.1f} s wall clock"),
        ("machine", _machine()),
        ("load average (1 min)", f"{recording.load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"),
        ("exit status", str(status)),
    ]
    table = "\n".join(f"| {key} | {value} |" for key, value in rows)
    return (f"# {recording.name}\n\nWritten by the benchmark script itself (`--write-results`); do not edit "
            f"by hand: rerun the command below to regenerate it.\n\n| | |\n|---|---|\n{table}\n\n"
            f"## Output\n\n{body}\n")


def _command_line() -> str:
    """How this process was started, as a command to paste (``python -m`` when run as a module)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name:
        program = ["-m", spec.name]
    else:
        script = Path(sys.argv[0]).resolve()
        program = [str(script.relative_to(REPO) if script.is_relative_to(REPO) else script)]
    return shlex.join(["python", *program, *sys.argv[1:]])


def _commit() -> str:
    """HEAD, and whether tracked files (results files aside) differ from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        head = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks/results")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"`{head}`" + (" plus uncommitted changes to tracked files" if changed else ", clean")


def _machine() -> str:
    """CPU count, memory and CPU model, read from /proc where there is one."""
    memory = cpu = None
    try:
        kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))
        memory = f"{kib / 2**20:.1f} GiB memory"
    except (OSError, StopIteration, ValueError):
        pass
    try:
        cpu = next(line.partition(":")[2].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor() or None
    parts = [f"{os.cpu_count()} CPUs", memory, cpu, f"{platform.system()} {platform.release()}",
             f"Python {platform.python_version()}"]
    return ", ".join(p for p in parts if p)
