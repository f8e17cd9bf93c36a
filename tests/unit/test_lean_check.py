"""The final check of a Lean proof, driven end to end through ``LeanDojoEnvironment.verify`` with
the default checker: LeanDojo's real ``LeanFile``/``Pos``/``Theorem`` over a tiny traced repository
in a temporary folder (only ``get_traced_repo_path`` and ``TracedFile.from_traced_file`` are
stood in for, since a real ``*.ast.json`` needs a Lean build), and a stand-in ``lake`` on ``PATH``
that keeps the file it was asked to compile and prints what the test says Lean prints.

What Lean prints is the code author's model (marker ``lean_model``): ``#print axioms`` answers
``'name' depends on axioms: [a, b]`` or ``'name' does not depend on any axioms`` (Lean 4's
``src/Lean/Elab/Print.lean``), info messages without a position prefix (``Message.toString``),
warnings as ``file:line:col: warning: ...``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import lean_dojo.data_extraction.trace as ld_trace  # noqa: E402  required: a broken install fails, not skips
import lean_dojo.interaction.dojo as ld_dojo  # noqa: E402
from lean_dojo.data_extraction.lean import LeanFile, Pos  # noqa: E402
from lean_dojo.data_extraction.traced_data import TracedFile  # noqa: E402

from prover.lean.env import LeanDojoEnvironment  # noqa: E402
from prover.lean.policy import check_tactic  # noqa: E402
from search_tree import ErrorKind, ProofStep, Theorem  # noqa: E402

pytestmark = pytest.mark.lean_model

# the repository's file: an earlier lemma proved by `sorry` (as every theorem of miniF2F's Test.lean
# is), the theorem, and a declaration after it that the check must not compile
SOURCE = """import Mathlib

theorem helper (n : Nat) : n = n + 1 := by sorry

theorem target (n : Nat) :
    n + 0 = n := by
  simp

theorem after : True := trivial
"""
HEADER = "theorem target (n : Nat) :\n    n + 0 = n :="
# the benchmark's text of the statement, which differs from the repository's
STATEMENT = "theorem target (n : ℕ) : n + 0 = n :="
THM = Theorem("target", "Example.lean", statement=STATEMENT, extra={"url": "https://github.com/x/example", "commit": "c0"})
PROOF = (ProofStep("simp"),)
TRUSTED = "'target' depends on axioms: [propext, Classical.choice, Quot.sound]\n"


def _pos(line: str, column_of: str = "") -> Pos:
    """The position of ``column_of`` in the first line of SOURCE that starts with ``line``."""
    number = next(i for i, text in enumerate(SOURCE.split("\n"), 1) if text.startswith(line))
    text = SOURCE.split("\n")[number - 1]
    return Pos(number, 1 + (text.index(column_of) if column_of else len(text)))


class FakeTracedFile:
    """The parts of LeanDojo's ``TracedFile`` its ``check_proof`` reads, over the real ``LeanFile``."""

    def __init__(self, root: Path) -> None:
        self.lean_file = LeanFile(root, Path("Example.lean"))
        self.abs_path = root / "Example.lean"
        self.comments: list = []

    def get_traced_theorem(self, thm):
        if thm.full_name != "target":
            return None
        start, by, end = _pos("theorem target"), _pos("    n + 0", "by"), _pos("  simp")
        return SimpleNamespace(start=Pos(start.line_nb, 1), locate_proof=lambda: (by, end))


@pytest.fixture
def lean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A traced repository and a stand-in ``lake``; returns ``answer(output, status=0)``, which
    sets what ``lake env lean`` prints, and the folder where the compiled file is kept."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "Example.lean").write_text(SOURCE)
    (root / "Lean4Repl.lean").write_text("")  # LeanDojo's own check insists on it
    bin_dir, seen = tmp_path / "bin", tmp_path / "seen"
    bin_dir.mkdir()
    seen.mkdir()
    lake = bin_dir / "lake"
    lake.write_text(f"""#!{sys.executable}
import shutil, sys
shutil.copy(sys.argv[-1], {str(seen / 'compiled.lean')!r})
sys.stdout.write(open({str(tmp_path / 'output')!r}).read())
sys.exit(int(open({str(tmp_path / 'status')!r}).read()))
""")
    lake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(ld_trace, "get_traced_repo_path", lambda repo, build_deps=True: root)
    monkeypatch.setattr(ld_dojo, "get_traced_repo_path", lambda repo, build_deps=True: root)
    monkeypatch.setattr(TracedFile, "from_traced_file", lambda root_dir, json_path, repo: FakeTracedFile(root))

    def answer(output: str, status: int = 0) -> None:
        (tmp_path / "output").write_text(output)
        (tmp_path / "status").write_text(str(status))

    answer.compiled = seen / "compiled.lean"  # type: ignore[attr-defined]
    return answer


def verify(proof=PROOF, **kw):
    env = LeanDojoEnvironment(repo_factory=lambda url, commit: SimpleNamespace(url=url, commit=commit), **kw)
    return env.verify(THM, proof)


def test_a_proof_through_a_sorried_lemma_is_refused(lean):
    """Fails if the check trusts Lean's `sorry` warning alone: it is printed on the earlier lemma's
    line, not the theorem's, and only `#print axioms` shows the theorem rests on `sorryAx`."""
    lean("Example_x.lean:3:8: warning: declaration uses 'sorry'\n'target' depends on axioms: [sorryAx]\n")
    verdict = verify()
    assert not verdict.ok and "sorryAx" in verdict.message
    compiled = lean.compiled.read_text()
    # the file up to the theorem, the proof, `#print axioms` and nothing of the rest of the file
    assert compiled.rstrip().endswith(f"{HEADER} by\n  simp\n\n#print axioms target")
    assert "theorem helper" in compiled and "theorem after" not in compiled


@pytest.mark.parametrize("axioms,named", [
    ("[Lean.ofReduceBool, Lean.trustCompiler]", "Lean.ofReduceBool"),
    ("[propext, Example.cheat]", "Example.cheat"),
])
def test_untrusted_axioms_are_refused_by_name(lean, axioms, named):
    """Fails if a proof resting on the compiler (`native_decide` in a lemma it uses) or on an axiom
    of the repository counts as proved, or if the refusal does not name the axiom."""
    lean(f"'target' depends on axioms: {axioms}\n")
    verdict = verify()
    assert not verdict.ok and named in verdict.message and "untrusted" in verdict.message


@pytest.mark.parametrize("output,axioms", [
    (TRUSTED, ("propext", "Classical.choice", "Quot.sound")),
    ("'target' does not depend on any axioms\n", ()),
    # a position prefix, and the list wrapped as Lean's formatter does past its width
    ("Example_x.lean:9:0: info: 'target' depends on axioms: [propext,\n Classical.choice,\n Quot.sound]\n",
     ("propext", "Classical.choice", "Quot.sound")),
])
def test_standard_axioms_are_accepted_and_recorded(lean, output, axioms):
    """Fails if a proof on Lean's three standard axioms is refused, or if the axioms found are not
    carried by the verdict and its message."""
    lean("Example_x.lean:3:8: warning: declaration uses 'sorry'\n" + output)
    verdict = verify()
    assert verdict.ok, verdict.message
    assert verdict.axioms == axioms and f"axioms: {', '.join(axioms) or 'none'}" in verdict.message


def test_the_reported_script_is_the_header_lean_checked(lean):
    """Fails if the verdict reports the benchmark's statement (here `ℕ` on one line) instead of the
    repository's header that Lean compiled with the proof."""
    lean(TRUSTED)
    verdict = verify()
    assert verdict.ok and verdict.script == f"{HEADER} by\n  simp"
    assert verdict.script in lean.compiled.read_text()


@pytest.mark.parametrize("output,fragment", [
    ("", "0 `#print axioms` lines"),
    ("'Other.target' depends on axioms: [propext]\n", "0 `#print axioms` lines"),
    ("'target' does not depend on any axioms\n" + "'target' depends on axioms: [sorryAx]\n", "2 `#print axioms` lines"),
])
def test_no_single_axioms_line_is_not_a_proof(lean, output, fragment):
    """Fails if the check accepts a proof whose axioms it could not read: no line for the theorem
    (a name printed differently), or two (one of them printed by something else)."""
    lean(output)
    verdict = verify()
    assert not verdict.ok and fragment in verdict.message


def test_an_error_is_not_a_proof(lean):
    """Fails if a non-zero exit is accepted, or if Lean's error is not in the message."""
    lean("Example_x.lean:7:2: error: simp made no progress\n" + TRUSTED, status=1)
    verdict = verify()
    assert not verdict.ok and "exit status 1" in verdict.message and "simp made no progress" in verdict.message


def test_a_sorry_warning_on_the_theorem_is_not_a_proof(lean):
    """Fails if a `sorry` warning on the theorem's own lines is ignored (whatever the axioms line says)."""
    lean("Example_x.lean:6:0: warning: declaration uses 'sorry'\n" + TRUSTED)
    assert "uses `sorry`" in verify().message


def test_a_check_past_its_time_is_not_a_proof(lean, tmp_path: Path):
    """Fails if the check waits for Lean without limit (or counts a killed Lean as an answer)."""
    from functools import partial

    from prover.lean.check import check_proof

    lake = tmp_path / "bin" / "lake"
    lake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n")
    verdict = verify(proof_checker=partial(check_proof, timeout=0.5))
    assert not verdict.ok and "ran past the 0.5s limit" in verdict.message


@pytest.mark.parametrize("tactic", ["exact (by_elab Lean.addDecl default)", "exact by_elab do return default",
                                    "exact eval% 2 ^ 10"])
def test_elaboration_code_in_a_term_is_refused(lean, tactic):
    """Fails if a term that runs meta code while it elaborates (`by_elab`, `eval%`) passes the
    policy: it can add an axiom or run IO before the check sees anything."""
    refused = check_tactic(tactic)
    assert refused is not None and refused.kind == ErrorKind.REFUSED and "escape" in refused.message
    lean(TRUSTED)
    assert not verify((ProofStep(tactic),)).ok and not lean.compiled.exists()


@pytest.mark.parametrize("tactic", ["  skip\npolyrith", "\n  skip\npolyrith"])
def test_the_policy_reads_the_tactic_as_it_is_rendered(lean, tactic):
    """Fails if a tactic whose first line is indented passes: the renderer aligns its first line
    with the block, so `polyrith`, hidden at another column than `skip` from the policy, would be
    rendered as a tactic of its own."""
    refused = check_tactic(tactic)
    assert refused is not None and "starts with whitespace" in refused.message
    lean(TRUSTED)
    assert not verify((ProofStep(tactic),)).ok and not lean.compiled.exists()
