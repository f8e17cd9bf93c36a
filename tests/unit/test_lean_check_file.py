"""The file the Lean final check compiles (:mod:`prover.lean.check_file`) and the reading of Lean's
answer to it (:func:`prover.lean.check.judge`), on text alone.

What Lean prints is the code author's model (marker ``lean_model``): ``#print axioms`` answers
``'name' depends on axioms: [a, b]`` or ``'name' does not depend on any axioms`` (Lean 4's
``src/Lean/Elab/Print.lean``), messages as ``file:line:col: severity: ...``. No Lean runs here.
"""

from __future__ import annotations

import pytest

from prover.lean.check import judge
from prover.lean.check_file import CheckFileError, CheckNames, checked_file, statement_header, theorem_reference

pytestmark = pytest.mark.lean_model

NAMES = CheckNames("dojo_statement_" + "a" * 32, "dojo_proved_" + "b" * 32)
BEFORE = "import Mathlib\n\nnamespace Foo\n\nvariable (h : 1 = 2)\n"
HEADER = "theorem target (n : Nat) :\n    n + 0 = n :="
ALIAS = NAMES.alias
TRUSTED = f"'{ALIAS}' depends on axioms: [propext, Classical.choice, Quot.sound]\n"


@pytest.mark.parametrize("header,statement,name", [
    (HEADER, "theorem S (n : Nat) :\n    n + 0 = n :=", "S"),
    # the namespace prefix is kept (Lean elaborates `theorem Nat.foo` inside `namespace Nat`), quoted parts too
    ("theorem Nat.foo (n : ℕ) : n = n :=", "theorem Nat.S (n : ℕ) : n = n :=", "Nat.S"),
    ("theorem _root_.«my nat».foo : True :=", "theorem _root_.«my nat».S : True :=", "_root_.«my nat».S"),
    ("theorem Foo.«x.y» : True :=", "theorem Foo.S : True :=", "Foo.S"),
    # universe parameters stay with the name
    ("theorem foo.{u} {α : Sort u} (a : α) : a = a :=", "theorem S.{u} {α : Sort u} (a : α) : a = a :=", "S"),
    # modifiers, attributes (which may hold the keyword) and a doc comment are dropped; `lemma` is a theorem
    ('/-- a /- nested -/ doc -/\n@[simp, to_additive "theorem x"] private lemma foo : 1 = 1 :=',
     "theorem S : 1 = 1 :=", "S"),
    ("@[simp]\nprotected theorem foo : True :=", "theorem S : True :=", "S"),
])
def test_the_statement_is_the_header_under_a_fresh_name(header, statement, name):
    """Fails if the statement is not the header's binders and type under the fresh last component,
    keeps a modifier or attribute (a `@[simp]` statement proved by `sorry` would be offered to the
    proof's `simp`), or loses the namespace prefix its names are resolved under."""
    assert statement_header(header, "S") == (statement, name)


@pytest.mark.parametrize("header", ["def foo : Nat :=", "example : True :=", "theorem : True :=",
                                    '/-- never closed\ntheorem foo : True :=', 'theorem foo : s!"x" = "x" :='])
def test_a_header_the_check_cannot_read_is_refused(header):
    """Fails if the check guesses where it cannot tell the declared name (not a theorem, no name, an
    unclosed doc comment, text its tokenizer refuses)."""
    with pytest.raises(CheckFileError):
        statement_header(header, "S")


@pytest.mark.parametrize("name", ["target := sorry", "target\n#print axioms x", "a b", "", "1", "target -- x"])
def test_the_theorems_name_cannot_write_lean(name):
    """Fails if the theorem's name, pasted into the file, could be more than one Lean name."""
    with pytest.raises(CheckFileError):
        theorem_reference(name)


def test_the_files_parts_are_where_it_says():
    """Fails if the statement (with `sorry`) does not come before the theorem, if the alias is not
    typed by the statement and proved by the theorem (named from the root), if anything but the
    alias's axioms is printed, or if the line ranges point elsewhere."""
    checked = checked_file(BEFORE, HEADER, "by\n  simp", "Foo.target", NAMES)
    lines = checked.text.split("\n")
    assert [lines[i - 1] for i in checked.statement_lines] == [
        f"theorem {NAMES.statement} (n : Nat) :", "    n + 0 = n := sorry"]
    assert [lines[i - 1] for i in checked.theorem_lines] == [
        "theorem target (n : Nat) :", "    n + 0 = n := by", "  simp"]
    assert lines[checked.statement_lines[0] - 2] == lines[checked.theorem_lines[0] - 2] == "set_option maxHeartbeats 0 in"
    assert [lines[i - 1] for i in checked.alias_lines] == [
        f"theorem _root_.{ALIAS} : type_of% @{NAMES.statement} := @_root_.Foo.target"]
    assert checked.text.startswith(BEFORE) and checked.text.endswith(f"\n#print axioms {ALIAS}\n")
    assert checked.text.count("#print") == 1 and checked.alias == ALIAS


def _judge(output: str, returncode: int = 0):
    return judge(returncode, output, checked_file(BEFORE, HEADER, "by\n  simp", "Foo.target", NAMES))


@pytest.mark.parametrize("output,axioms", [
    (TRUSTED, ("propext", "Classical.choice", "Quot.sound")),
    (f"'{ALIAS}' does not depend on any axioms\n", ()),
    (f"Foo_x.lean:18:0: info: '{ALIAS}' depends on axioms: [propext,\n Quot.sound]\n", ("propext", "Quot.sound")),
    # the statement's own `sorry` (lines 9 to 10) is not the proof's
    ("Foo_x.lean:9:8: warning: declaration uses 'sorry'\n" + TRUSTED, ("propext", "Classical.choice", "Quot.sound")),
])
def test_the_alias_line_on_trusted_axioms_is_a_proof(output, axioms):
    """Fails if an honest answer is refused: the alias's line alone (with or without a position,
    wrapped), beside the `sorry` warning of the check's own statement."""
    assert _judge(output) == (True, f"accepted by Lean (compiled in the theorem's file; axioms: {', '.join(axioms) or 'none'})",
                              axioms)


@pytest.mark.parametrize("output,fragment", [
    # the real line names sorryAx: the theorem's own (the alias depends on the statement's type only)
    (f"'{ALIAS}' depends on axioms: [propext, sorryAx]\n", "untrusted axiom(s) sorryAx"),
    # a line the proof printed under the theorem's name, or a private theorem's name, is not read
    ("'Foo.target' does not depend on any axioms\n", "0 `#print axioms` lines"),
    (f"'Foo.target' does not depend on any axioms\n'{ALIAS}' depends on axioms: [sorryAx]\n", "untrusted axiom(s) sorryAx"),
    ("'_private.Foo_x.0.Foo.target' depends on axioms: [propext]\n", "0 `#print axioms` lines"),
    # two lines for the alias, or a second mention of it
    (f"'{ALIAS}' does not depend on any axioms\n" + TRUSTED, "2 `#print axioms` lines"),
    (TRUSTED + f"note: {ALIAS}\n", "no other mention"),
    # the line glued to text before it (the proof printed without a newline) is not a line of Lean's
    (f"junk '{ALIAS}' does not depend on any axioms\n", "0 `#print axioms` lines"),
    # a `sorry` warning on the theorem's lines (13 to 15)
    ("Foo_x.lean:13:0: warning: declaration uses 'sorry'\n" + TRUSTED, "the theorem uses `sorry`"),
])
def test_anything_but_one_trusted_alias_line_is_refused(output, fragment):
    """Fails if the check reads a line it did not ask for, or accepts `sorryAx`, a doubled or a
    missing alias line, or a `sorry` warning on the theorem."""
    ok, message, _ = _judge(output)
    assert not ok and fragment in message


def test_an_error_on_the_alias_says_the_types_differ():
    """Fails if the alias not compiling (the theorem's type is not its header's: a section variable
    the proof used) is not refused with that reason; an error elsewhere is a plain refusal."""
    mismatch = "Foo_x.lean:17:0: error: type mismatch\n  @Foo.target\nhas type\n  1 = 2 → ∀ (n : ℕ), n + 0 = n\n"
    ok, message, _ = _judge(mismatch + TRUSTED, returncode=1)
    assert not ok and "does not have its header's type" in message
    ok, message, _ = _judge("Foo_x.lean:14:2: error: simp made no progress\n" + TRUSTED, returncode=1)
    assert not ok and "exit status 1" in message and "header's type" not in message


@pytest.mark.parametrize("output", [
    # the header names an unknown constant: the statement (lines 9 to 10) fails, so do the theorem
    # (13 to 15) and the alias (17), which refers to the statement
    "Foo_x.lean:10:4: error: unknown identifier 'bogus'\n"
    "Foo_x.lean:14:4: error: unknown identifier 'bogus'\n"
    f"Foo_x.lean:17:29: error: unknown identifier 'dojo_statement_{'a' * 32}'\n",
    # the statement alone fails (the alias then cannot refer to it)
    "Foo_x.lean:9:30: error: unknown identifier 'bogus'\n"
    f"Foo_x.lean:17:29: error: unknown constant 'dojo_statement_{'a' * 32}'\n",
])
def test_a_header_that_does_not_elaborate_is_said_so(output):
    """Fails if a header that does not elaborate is blamed on a section variable (the alias fails
    only because the statement does), or if the refusal is not one line naming the header's error."""
    ok, message, axioms = _judge(output, returncode=1)
    assert not ok and axioms == ()
    assert message == "Lean rejected the theorem's header: it does not elaborate (unknown identifier 'bogus')"


def test_an_error_in_the_proof_is_not_blamed_on_a_section_variable():
    """Fails if the alias failing after the theorem itself failed (so it may not exist) is said to be
    a type mismatch of the header's and the theorem's."""
    output = ("Foo_x.lean:14:2: error: simp made no progress\n"
              "Foo_x.lean:17:0: error: unknown constant 'Foo.target'\n")
    ok, message, _ = _judge(output, returncode=1)
    assert not ok and "exit status 1" in message and "header's type" not in message and "section" not in message
