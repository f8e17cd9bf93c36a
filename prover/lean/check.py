"""The final check of a Lean proof: the theorem compiled afresh with the proof, and its axioms listed.

LeanDojo's ``check_proof`` compiles the theorem's file with the proof in place and rejects only on
an error or a ``declaration uses 'sorry'`` warning on the theorem's own lines. That misses what
the proof uses: an earlier lemma of the same file proved by ``sorry`` (every theorem of miniF2F's
``Test.lean`` is), one proved by ``native_decide``, or an axiom the file declares. Lean warns only
on the declaration that itself contains the ``sorry``, so the proof passes.

This check builds the file from LeanDojo's own pieces (the traced repository, the file's code
before the theorem without comments, the theorem's header as the repository declares it), puts
the proof after the header and ``#print axioms <theorem>`` after the proof, and drops the rest of
the file: nothing after a declaration can change it. ``lake env lean`` runs it in the traced
repository, as LeanDojo does, on a temporary file beside the original (removed afterwards), for
at most ``timeout`` seconds. The proof is accepted only if Lean exits with 0, prints no ``sorry``
warning on the theorem's lines, and prints exactly one axioms line for the theorem whose axioms
are all in :data:`TRUSTED_AXIOMS`. Anything else, a missing or doubled line included, is not a proof.

The statement proved is the repository's header, which can differ from a benchmark's text of it
(178 of miniF2F's 486 do): :class:`LeanCheck` returns it, and the verdict reports it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prover.defaults import LEAN_CHECK_TIMEOUT

#: Lean's three standard axioms (``#print axioms Classical.em`` lists exactly these); ``sorryAx``,
#: ``Lean.ofReduceBool``/``Lean.trustCompiler`` (``native_decide``) and any declared axiom are not.
TRUSTED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

# `file:line:col: warning: declaration uses 'sorry'`, with an optional end position and error name
_SORRY_WARNING = re.compile(r":(\d+):\d+(?:-\d+:\d+)?: warning(?:\([^)]*\))?: declaration uses 'sorry'")


@dataclass(frozen=True)
class LeanCheck:
    """The checker's verdict; ``header`` is the declaration's header as Lean compiled it (ending in
    ``:=``), ``axioms`` what ``#print axioms`` listed for the theorem."""

    ok: bool
    message: str
    header: str = ""
    axioms: tuple[str, ...] = ()


@dataclass(frozen=True)
class TheoremSource:
    """What the check compiles around a proof: the traced repository (where ``lake`` runs), the
    theorem's file in it, the file's code before the theorem and the theorem's header."""

    repo_dir: Path
    file: Path
    before: str
    header: str


def theorem_source(lean_theorem: Any) -> TheoremSource:
    """The theorem's place in its traced repository, found with LeanDojo's own functions (those of
    its ``check_proof``), so that the file is the one LeanDojo traced and the search ran in."""
    from lean_dojo import DojoInitError
    from lean_dojo.data_extraction.trace import get_traced_repo_path
    from lean_dojo.data_extraction.traced_data import TracedFile, get_code_without_comments
    from lean_dojo.utils import to_json_path

    repo_dir = get_traced_repo_path(lean_theorem.repo)
    try:
        json_path = to_json_path(repo_dir, lean_theorem.file_path, lean_theorem.repo)
        traced_file = TracedFile.from_traced_file(repo_dir, json_path, lean_theorem.repo)
    except FileNotFoundError as exc:
        raise DojoInitError(f"Cannot find the *.ast.json file for {lean_theorem} in {repo_dir}.") from exc
    traced = traced_file.get_traced_theorem(lean_theorem)
    if traced is None:
        raise DojoInitError(f"Failed to locate the theorem with `{lean_theorem.full_name}` as its fully qualified name.")
    proof_start, _ = traced.locate_proof()
    code = traced_file.lean_file
    before = get_code_without_comments(code, code.start_pos, traced.start, traced_file.comments)
    header = get_code_without_comments(code, traced.start, proof_start, traced_file.comments).strip()
    if header.endswith(" where"):
        raise DojoInitError("Cannot check theorems with the `where` keyword.")
    return TheoremSource(Path(repo_dir), Path(traced_file.abs_path), before, header if header.endswith(":=") else header + " :=")


def checked_text(source: TheoremSource, proof: str, full_name: str) -> tuple[str, range]:
    """The file Lean compiles, and the range of its lines that hold the theorem."""
    text = source.before + "\n\nset_option maxHeartbeats 0 in\n"
    first = text.count("\n") + 1
    text += f"{source.header} {proof}\n"
    lines = range(first, text.count("\n") + 1)
    return text + f"\n#print axioms {full_name}\n", lines


def _axiom_lines(output: str, full_name: str) -> list[list[str]]:
    """The axiom lists of every ``#print axioms`` line for ``full_name`` in Lean's output (Lean
    prints ``'name' depends on axioms: [a, b]``, the list wrapped over lines when long, or
    ``'name' does not depend on any axioms``; with or without a ``file:line:col: info:`` prefix)."""
    pattern = re.compile(r"^(?:.*?:\d+:\d+(?:-\d+:\d+)?: info: )?'" + re.escape(full_name)
                         + r"' (?:does not depend on any axioms$|depends on axioms: \[([^\]]*)\])", re.MULTILINE)
    return [[a.strip() for a in (m.group(1) or "").split(",") if a.strip()] for m in pattern.finditer(output)]


def judge(returncode: int, output: str, full_name: str, lines: range) -> tuple[bool, str, tuple[str, ...]]:
    """The verdict on Lean's answer: (accepted, why, the axioms found). Fails closed."""
    if returncode != 0:
        return False, f"Lean rejected the proof (exit status {returncode}): {output.strip()[-2000:]}", ()
    if any(int(m.group(1)) in lines for m in _SORRY_WARNING.finditer(output)):
        return False, "Lean rejected the proof: the theorem uses `sorry`", ()
    found = _axiom_lines(output, full_name)
    if len(found) != 1:
        return False, (f"Lean printed {len(found)} `#print axioms` lines for '{full_name}' (expected exactly one); "
                       f"nothing can be said of its axioms: {output.strip()[-2000:]}"), ()
    axioms = tuple(found[0])
    untrusted = [a for a in axioms if a not in TRUSTED_AXIOMS]
    if untrusted:
        return False, (f"the proof depends on the untrusted axiom(s) {', '.join(untrusted)} "
                       f"(only {', '.join(sorted(TRUSTED_AXIOMS))} are accepted)"), axioms
    return True, f"accepted by Lean (compiled in the theorem's file; axioms: {', '.join(axioms) or 'none'})", axioms


def run_lean(source: TheoremSource, text: str, timeout: float) -> tuple[int, str] | None:
    """``lake env lean`` on ``text`` written beside the theorem's file, in the traced repository (the
    limits of LeanDojo's own check); its exit status and output, or None past ``timeout`` seconds
    (Lean and everything it started are killed)."""
    from lean_dojo.constants import TACTIC_CPU_LIMIT, TACTIC_MEMORY_LIMIT

    with tempfile.NamedTemporaryFile("w", prefix=source.file.stem, suffix=".lean", dir=source.file.parent,
                                     encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        relative = Path(handle.name).relative_to(source.repo_dir)
        command = ["lake", "env", "lean", f"--threads={TACTIC_CPU_LIMIT}",
                   f"--memory={1024 * int(TACTIC_MEMORY_LIMIT[:-1])}", str(relative)]
        with subprocess.Popen(command, cwd=source.repo_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, start_new_session=True) as proc:
            try:
                output, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # its own session: lake and the lean it started
                proc.communicate()
                return None
    return proc.returncode, output


def check_proof(lean_theorem: Any, proof: str, timeout: float = LEAN_CHECK_TIMEOUT) -> LeanCheck:
    """Check the ``by ...`` block ``proof`` of ``lean_theorem`` (a ``lean_dojo.Theorem``) as the
    module doc says."""
    source = theorem_source(lean_theorem)
    text, lines = checked_text(source, proof, lean_theorem.full_name)
    answer = run_lean(source, text, timeout)
    if answer is None:
        return LeanCheck(False, f"Lean ran past the {timeout}s limit of the final check", source.header)
    ok, message, axioms = judge(*answer, lean_theorem.full_name, lines)
    return LeanCheck(ok, message, source.header, axioms)
