"""The final check of a Lean proof, driven end to end through ``LeanDojoEnvironment.verify`` with
the default checker: LeanDojo's real ``LeanFile``/``Pos``/``Theorem`` over a tiny traced repository
in a temporary folder (only ``get_traced_repo_path`` and ``TracedFile.from_traced_file`` are
stood in for, since a real ``*.ast.json`` needs a Lean build; the stand-in's syntax tree is made of
LeanDojo's real node classes), and a stand-in ``lake`` on ``PATH`` that keeps the file it was asked
to compile and prints what the test says Lean prints, with ``{alias}`` replaced by the name of the
alias the file prints the axioms of and ``{statement_line}``/``{theorem_line}``/``{alias_line}`` by
the lines where the file declares them (left as they are where the file has no such thing).

What Lean prints is the code author's model (marker ``lean_model``): ``#print axioms`` answers
``'name' depends on axioms: [a, b]`` or ``'name' does not depend on any axioms`` (Lean 4's
``src/Lean/Elab/Print.lean``), info messages without a position prefix (``Message.toString``),
warnings as ``file:line:col: warning: ...``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import lean_dojo.data_extraction.trace as ld_trace  # noqa: E402  required: a broken install fails, not skips
import lean_dojo.interaction.dojo as ld_dojo  # noqa: E402
from lean_dojo.data_extraction.ast import CommandDeclarationNode, CommandTheoremNode, Node  # noqa: E402
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

@[simp] private theorem hidden (n : Nat) :
    n * 1 = n := by
  simp

theorem after : True := trivial
"""
HEADER = "theorem target (n : Nat) :\n    n + 0 = n :="
# the benchmark's text of the statement, which differs from the repository's
STATEMENT = "theorem target (n : ℕ) : n + 0 = n :="
THM = Theorem("target", "Example.lean", statement=STATEMENT, extra={"url": "https://github.com/x/example", "commit": "c0"})
PROOF = (ProofStep("simp"),)
PRIVATE = Theorem("hidden", "Example.lean", extra=THM.extra)
TRUSTED = "'{alias}' depends on axioms: [propext, Classical.choice, Quot.sound]\n"


def _pos(line: str, column_of: str = "") -> Pos:
    """The position of ``column_of`` in the first line of SOURCE that starts with ``line``."""
    number = next(i for i, text in enumerate(SOURCE.split("\n"), 1) if text.startswith(line))
    text = SOURCE.split("\n")[number - 1]
    return Pos(number, 1 + (text.index(column_of) if column_of else len(text)))


class FakeTracedFile:
    """The parts of LeanDojo's ``TracedFile`` its ``check_proof`` reads, over the real ``LeanFile``:
    as in LeanDojo, a ``theorem`` node starts at its keyword and its modifiers (``@[simp] private``)
    start the declaration node around it."""

    def __init__(self, root: Path) -> None:
        self.lean_file = LeanFile(root, Path("Example.lean"))
        self.abs_path = root / "Example.lean"
        self.comments: list = []
        self.theorems = {
            "target": (_pos("theorem target", "t"), _pos("theorem target", "t"), _pos("    n + 0", "by"), _pos("  simp")),
            "hidden": (_pos("@[simp] private", "@"), _pos("@[simp] private", "theorem"), _pos("    n * 1", "by"),
                       Pos(_pos("    n * 1").line_nb + 1, 7)),
        }
        self.nodes = {name: CommandTheoremNode(self.lean_file, keyword, end, [], name)
                      for name, (_, keyword, _, end) in self.theorems.items()}
        self.ast = Node(self.lean_file, None, None, [
            CommandDeclarationNode(self.lean_file, declaration, end, [Node(self.lean_file, None, None, []), node], name)
            for name, node, (declaration, _, _, end) in ((n, self.nodes[n], t) for n, t in self.theorems.items())])

    def get_traced_theorem(self, thm):
        if thm.full_name not in self.theorems:
            return None
        _, keyword, by, end = self.theorems[thm.full_name]
        return SimpleNamespace(start=keyword, ast=self.nodes[thm.full_name], locate_proof=lambda: (by, end))


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
import re, shutil, sys
shutil.copy(sys.argv[-1], {str(seen / 'compiled.lean')!r})
text = open(sys.argv[-1]).read()
lines = text.split("\\n")
output = open({str(tmp_path / 'output')!r}).read()
alias = re.search(r"^#print axioms (dojo_proved_[0-9a-f]{{32}})$", text, re.M)
if alias:
    output = output.replace("{{alias}}", alias.group(1))
for key, pattern in (("statement", r"theorem dojo_statement_"), ("theorem", r"theorem (target|hidden)|@\\[simp\\] private"),
                     ("alias", r"theorem _root_\\.dojo_proved_")):
    found = [i for i, line in enumerate(lines, 1) if re.match(pattern, line)]
    if found:
        output = output.replace("{{" + key + "_line}}", str(found[0]))
sys.stdout.write(output)
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


def verify(proof=PROOF, theorem=THM, **kw):
    env = LeanDojoEnvironment(repo_factory=lambda url, commit: SimpleNamespace(url=url, commit=commit), **kw)
    return env.verify(theorem, proof)


def test_a_proof_through_a_sorried_lemma_is_refused(lean):
    """Fails if the check trusts Lean's `sorry` warning alone: it is printed on the earlier lemma's
    line, not the theorem's, and only `#print axioms` shows the theorem rests on `sorryAx`."""
    lean("Example_x.lean:3:8: warning: declaration uses 'sorry'\n'{alias}' depends on axioms: [sorryAx]\n")
    verdict = verify()
    assert not verdict.ok and "sorryAx" in verdict.message
    compiled = lean.compiled.read_text()
    # the file up to the theorem, the proof, the alias, `#print axioms` and nothing of the rest of the file
    assert f"{HEADER} by\n  simp\n\ntheorem _root_.dojo_proved_" in compiled
    assert re.search(r"\n#print axioms dojo_proved_[0-9a-f]{32}\n\Z", compiled)
    assert "theorem helper" in compiled and "theorem after" not in compiled


@pytest.mark.parametrize("axioms,named", [
    ("[Lean.ofReduceBool, Lean.trustCompiler]", "Lean.ofReduceBool"),
    ("[propext, Example.cheat]", "Example.cheat"),
])
def test_untrusted_axioms_are_refused_by_name(lean, axioms, named):
    """Fails if a proof resting on the compiler (`native_decide` in a lemma it uses) or on an axiom
    of the repository counts as proved, or if the refusal does not name the axiom."""
    lean(f"'{{alias}}' depends on axioms: {axioms}\n")
    verdict = verify()
    assert not verdict.ok and named in verdict.message and "untrusted" in verdict.message


@pytest.mark.parametrize("output,axioms", [
    (TRUSTED, ("propext", "Classical.choice", "Quot.sound")),
    ("'{alias}' does not depend on any axioms\n", ()),
    # a position prefix, and the list wrapped as Lean's formatter does past its width
    ("Example_x.lean:9:0: info: '{alias}' depends on axioms: [propext,\n Classical.choice,\n Quot.sound]\n",
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
    ("'Other.{alias}' depends on axioms: [propext]\n", "0 `#print axioms` lines"),
    ("'{alias}' does not depend on any axioms\n" + "'{alias}' depends on axioms: [sorryAx]\n", "2 `#print axioms` lines"),
])
def test_no_single_axioms_line_is_not_a_proof(lean, output, fragment):
    """Fails if the check accepts a proof whose axioms it could not read: no line for the theorem
    (a name printed differently), or two (one of them printed by something else)."""
    lean(output)
    verdict = verify()
    assert not verdict.ok and fragment in verdict.message


def test_an_error_is_not_a_proof(lean):
    """Fails if a non-zero exit is accepted, or if Lean's error is not in the message."""
    lean("Example_x.lean:{theorem_line}:2: error: simp made no progress\n" + TRUSTED, status=1)
    verdict = verify()
    assert not verdict.ok and "exit status 1" in verdict.message and "simp made no progress" in verdict.message


def test_a_sorry_warning_on_the_theorem_is_not_a_proof(lean):
    """Fails if a `sorry` warning on the theorem's own lines is ignored (whatever the axioms line says)."""
    lean("Example_x.lean:{theorem_line}:0: warning: declaration uses 'sorry'\n" + TRUSTED)
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


# -- the statement and the alias (the theorem's type against its header's; the axioms of a name the proof cannot know)


def test_the_file_compares_the_theorem_with_its_header_under_fresh_names(lean):
    """Fails if the check does not elaborate the header again, with a `sorry` body, before the proof
    (so its type is the header's whatever the proof does), does not require an alias typed by that
    statement and proved by the theorem, prints the axioms of anything but that alias, or names the
    alias or the statement predictably (the same in two checks, or one derived from the other)."""
    names = []
    for _ in range(2):
        lean(TRUSTED)
        assert verify().ok
        compiled = lean.compiled.read_text()
        statement = re.search(r"^theorem (dojo_statement_([0-9a-f]{32})) \(n : Nat\) :\n    n \+ 0 = n := sorry\n",
                              compiled, re.M)
        alias = re.search(r"^theorem _root_\.(dojo_proved_([0-9a-f]{32})) : type_of% @(\w+) := @_root_\.target\n", compiled, re.M)
        assert statement and alias and alias.group(3) == statement.group(1)
        assert statement.start() < compiled.index(HEADER) < alias.start()
        assert compiled.count("#print axioms") == 1 and compiled.rstrip().endswith(f"#print axioms {alias.group(1)}")
        assert statement.group(2) != alias.group(2)
        names.append((statement.group(2), alias.group(2)))
    assert names[0][0] != names[1][0] and names[0][1] != names[1][1]


def test_a_theorem_whose_type_is_not_its_headers_is_refused(lean):
    """Fails if a proof is accepted when the alias does not compile, that is when the theorem Lean
    compiled has another type than its header (before Lean v4.10, `variable (h : 1 = 2)` used by the
    proof becomes a hypothesis of the theorem, and `#print axioms` shows nothing), or if the refusal
    does not say so."""
    lean("Example_x.lean:{alias_line}:0: error: type mismatch\n  @target\nhas type\n  1 = 2 → ∀ (n : ℕ), n + 0 = n : Prop\n"
         "but is expected to have type\n  ∀ (n : ℕ), n + 0 = n : Prop\n" + TRUSTED, status=1)
    verdict = verify()
    assert not verdict.ok and "does not have its header's type" in verdict.message


def test_a_header_that_does_not_elaborate_is_not_blamed_on_a_section_variable(lean):
    """Fails if a header Lean cannot elaborate (its statement fails, so the alias that refers to it
    fails too) is refused as a theorem whose type differs from its header's, or if the refusal is
    not one line naming the header's error."""
    lean("Example_x.lean:{statement_line}:30: error: unknown identifier 'bogus'\n"
         "Example_x.lean:{theorem_line}:30: error: unknown identifier 'bogus'\n"
         "Example_x.lean:{alias_line}:29: error: unknown identifier 'dojo_statement_x'\n", status=1)
    verdict = verify()
    assert not verdict.ok
    assert verdict.message == "Lean rejected the theorem's header: it does not elaborate (unknown identifier 'bogus')"


def test_the_statements_sorry_is_not_the_proofs(lean):
    """Fails if the `sorry` warning of the check's own statement (on lines before the theorem's)
    counts as the proof's, which would refuse every proof."""
    lean("Example_x.lean:3:8: warning: declaration uses 'sorry'\n"
         "Example_x.lean:{statement_line}:8: warning: declaration uses 'sorry'\n" + TRUSTED)
    verdict = verify()
    assert verdict.ok, verdict.message


def test_sorry_in_the_theorems_axioms_is_still_refused(lean):
    """Fails if `sorryAx` in the alias's axioms (which are the theorem's: the alias depends on the
    statement's type, not its proof) is accepted, or if the refusal does not name it as untrusted."""
    lean("Example_x.lean:{statement_line}:8: warning: declaration uses 'sorry'\n"
         "'{alias}' depends on axioms: [propext, sorryAx]\n")
    verdict = verify()
    assert not verdict.ok and "untrusted axiom(s) sorryAx" in verdict.message


@pytest.mark.parametrize("output,fragment", [
    # the proof printed (through a string) a clean line under the theorem's name; the real line is the alias's
    ("'target' does not depend on any axioms\n'{alias}' depends on axioms: [sorryAx]\n", "untrusted axiom(s) sorryAx"),
    # a clean line under the theorem's name and no alias line at all
    ("'target' depends on axioms: [propext]\n", "0 `#print axioms` lines for the theorem's alias"),
    # a guessed alias name: a line of the proof's choosing, and the real one missing
    ("'dojo_proved_00000000000000000000000000000000' does not depend on any axioms\n",
     "0 `#print axioms` lines for the theorem's alias"),
])
def test_only_the_alias_line_counts(lean, output, fragment):
    """Fails if a line other than the one naming the alias is read: a line the proof printed under
    the theorem's name (the old check took it when it was the only one under that name, whatever
    else was printed), or a guessed alias name."""
    lean(output)
    verdict = verify()
    assert not verdict.ok and fragment in verdict.message


def test_the_alias_named_elsewhere_is_not_read(lean):
    """Fails if the check reads the alias line when the alias is also named on another line: the
    one axioms line must be the only mention of a name the proof cannot know."""
    lean("'{alias}' does not depend on any axioms\nExample_x.lean:20:0: warning: '{alias}' was printed twice\n")
    assert "expected exactly one, and no other mention" in verify().message


def test_a_private_theorem_with_attributes_is_checked(lean):
    """Fails if an honest proof of a `private` theorem is refused: its modifiers (which LeanDojo's
    theorem node leaves before it) must stay on the theorem after the check's `set_option ... in`
    (`private` then `set_option` does not parse), the statement must drop them (a `@[simp]` lemma
    proved by `sorry` would be offered to `simp`), and the axioms read are the alias's, since Lean
    prints a private theorem's name as `_private.<module>.0.hidden`."""
    lean("Example_x.lean:{statement_line}:8: warning: declaration uses 'sorry'\n"
         "'_private.Example_x.0.hidden' depends on axioms: [sorryAx]\n" + TRUSTED)
    verdict = verify(theorem=PRIVATE)
    assert verdict.ok, verdict.message
    assert verdict.script == "@[simp] private theorem hidden (n : Nat) :\n    n * 1 = n := by\n  simp"
    compiled = lean.compiled.read_text()
    assert "set_option maxHeartbeats 0 in\n@[simp] private theorem hidden (n : Nat) :" in compiled
    assert re.search(r"^theorem dojo_statement_[0-9a-f]{32} \(n : Nat\) :\n    n \* 1 = n := sorry$", compiled, re.M)
    assert "private" not in compiled.split("set_option maxHeartbeats 0 in")[0] and "@_root_.hidden\n" in compiled
