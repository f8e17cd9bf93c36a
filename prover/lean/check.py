"""The final check of a Lean proof: the theorem compiled afresh with the proof, its type compared
with its header's, and its axioms listed.

LeanDojo's ``check_proof`` compiles the theorem's file with the proof in place and rejects only on
an error or a ``declaration uses 'sorry'`` warning on the theorem's own lines. That misses what
the proof uses: an earlier lemma of the same file proved by ``sorry`` (every theorem of miniF2F's
``Test.lean`` is), one proved by ``native_decide``, or an axiom the file declares. Lean warns only
on the declaration that itself contains the ``sorry``, so the proof passes. It also misses a
section ``variable`` the proof uses, which Lean before v4.10 adds to the theorem's type.

This check builds the file from LeanDojo's own pieces (the traced repository, the file's code
before the declaration without comments, the declaration's header as the repository declares it,
modifiers included) and drops the rest of the file: nothing after a declaration can change it.
After the code before it come the header again under a fresh name with a ``sorry`` body (the
statement), the header with the proof (the theorem), an alias with a fresh unpredictable name whose
type is the statement's and whose proof is the theorem, and ``#print axioms`` of the alias; why
each is written as it is, is in :mod:`prover.lean.check_file`. ``lake env lean`` runs it in the
traced repository, as LeanDojo does, on a temporary file beside the original (removed afterwards),
for at most ``timeout`` seconds. The proof is accepted only if Lean exits with 0 (so the alias
compiled: the theorem's type is the header's), prints no ``sorry`` warning on the theorem's lines
(the statement's own is on lines before them), and prints exactly one line naming the alias, an
axioms line whose axioms are all in :data:`TRUSTED_AXIOMS`. Anything else, a missing or doubled
line included, is not a proof. This reading of Lean's output is the code author's model of it
(``src/Lean/Elab/Print.lean``); only the integration test runs it against real Lean.

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
from prover.lean.check_file import CheckedFile, CheckFileError, CheckNames, checked_file, fresh_names

#: Lean's three standard axioms (``#print axioms Classical.em`` lists exactly these); ``sorryAx``,
#: ``Lean.ofReduceBool``/``Lean.trustCompiler`` (``native_decide``) and any declared axiom are not.
TRUSTED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

# `file:line:col: warning: declaration uses 'sorry'`, with an optional end position and error name
_SORRY_WARNING = re.compile(r":(\d+):\d+(?:-\d+:\d+)?: warning(?:\([^)]*\))?: declaration uses 'sorry'")
# `file:line:col: error: ...`
_ERROR = re.compile(r":(\d+):\d+(?:-\d+:\d+)?: error(?:\([^)]*\))?:")


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
    start = declaration_start(traced_file, traced)
    before = get_code_without_comments(code, code.start_pos, start, traced_file.comments)
    header = get_code_without_comments(code, start, proof_start, traced_file.comments).strip()
    if header.endswith(" where"):
        raise DojoInitError("Cannot check theorems with the `where` keyword.")
    return TheoremSource(Path(repo_dir), Path(traced_file.abs_path), before, header if header.endswith(":=") else header + " :=")


def declaration_start(traced_file: Any, traced: Any) -> Any:
    """Where the theorem's declaration starts, modifiers included (``@[simp] private theorem``).

    LeanDojo's theorem node of a ``theorem`` starts at the keyword; its modifiers belong to the
    enclosing declaration node, and would otherwise end the code before it, where the check puts
    its own commands (``private`` then ``set_option`` does not parse). A ``lemma`` node holds its
    modifiers itself: then there is no enclosing declaration and the theorem's start is kept."""
    from lean_dojo.data_extraction.ast import CommandDeclarationNode

    found: list[Any] = []

    def visit(node: Any, _: Any) -> bool:
        if (isinstance(node, CommandDeclarationNode) and len(node.children) > 1 and node.children[1] is traced.ast
                and node.start is not None):
            found.append(node.start)
        return False

    traced_file.ast.traverse_preorder(visit, node_cls=None)
    return found[0] if len(found) == 1 else traced.start


def checked_text(source: TheoremSource, proof: str, full_name: str, names: CheckNames | None = None) -> CheckedFile:
    """The file Lean compiles (:func:`prover.lean.check_file.checked_file`), with fresh names
    unless ``names`` are given."""
    return checked_file(source.before, source.header, proof, full_name, names or fresh_names())


def _axiom_lines(output: str, alias: str) -> list[list[str]]:
    """The axiom lists of every ``#print axioms`` line for ``alias`` in Lean's output (Lean
    prints ``'name' depends on axioms: [a, b]``, the list wrapped over lines when long, or
    ``'name' does not depend on any axioms``; with or without a ``file:line:col: info:`` prefix)."""
    pattern = re.compile(r"^(?:.*?:\d+:\d+(?:-\d+:\d+)?: info: )?'" + re.escape(alias)
                         + r"' (?:does not depend on any axioms$|depends on axioms: \[([^\]]*)\])", re.MULTILINE)
    return [[a.strip() for a in (m.group(1) or "").split(",") if a.strip()] for m in pattern.finditer(output)]


def judge(returncode: int, output: str, checked: CheckedFile) -> tuple[bool, str, tuple[str, ...]]:
    """The verdict on Lean's answer to ``checked``: (accepted, why, the axioms found). Fails closed.

    Only the alias's line is read, and it must be the only text naming the alias: the name was
    drawn after the proof was written, so no other line can be the proof's doing. An error on the
    statement's lines (the header alone) is the header's: it does not elaborate, whatever the proof;
    an error on the alias's lines, with none on the statement's or the theorem's, is the theorem's
    type differing from its header's (a section ``variable`` the proof uses)."""
    tail = output.strip()[-2000:]
    if returncode != 0:
        errors = [(int(m.group(1)), output[m.end():].split("\n", 1)[0].strip()) for m in _ERROR.finditer(output)]
        header_errors = [text for line, text in errors if line in checked.statement_lines]
        if header_errors:
            # the statement is the header alone: it failing is the header's doing, not the proof's
            return False, f"Lean rejected the theorem's header: it does not elaborate ({header_errors[0] or 'error'})", ()
        if (any(line in checked.alias_lines for line, _ in errors)
                and not any(line in checked.theorem_lines for line, _ in errors)):
            return False, ("Lean rejected the proof: the theorem it compiled does not have its header's type "
                           f"(before Lean v4.10 a section `variable` the proof uses becomes a hypothesis): {tail}"), ()
        return False, f"Lean rejected the proof (exit status {returncode}): {tail}", ()
    if any(int(m.group(1)) in checked.theorem_lines for m in _SORRY_WARNING.finditer(output)):
        return False, "Lean rejected the proof: the theorem uses `sorry`", ()
    found = _axiom_lines(output, checked.alias)
    if len(found) != 1 or output.count(checked.alias) != 1:
        return False, (f"Lean printed {len(found)} `#print axioms` lines for the theorem's alias "
                       f"'{checked.alias}' (expected exactly one, and no other mention of it); "
                       f"nothing can be said of its axioms: {tail}"), ()
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
    try:
        checked = checked_text(source, proof, lean_theorem.full_name)
    except CheckFileError as exc:
        return LeanCheck(False, f"cannot check the proof: {exc}", source.header)
    answer = run_lean(source, checked.text, timeout)
    if answer is None:
        return LeanCheck(False, f"Lean ran past the {timeout}s limit of the final check", source.header)
    ok, message, axioms = judge(*answer, checked)
    return LeanCheck(ok, message, source.header, axioms)
