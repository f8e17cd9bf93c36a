"""The final check's file (:mod:`prover.lean.check_file`) compiled by real Lean, where a Lean
toolchain is installed (``lean`` on PATH; core Lean only, no repository, no ``lake``).

Each case writes the file the check would write for a tiny theorem and reads Lean's answer with
:func:`prover.lean.check.judge`: what the unit tests assume of Lean's output (the alias's axioms
line, the statement's ``sorry`` warning, where a type mismatch is reported) is here compared with
Lean itself. Skipped where Lean is absent (as on the development machine): not run there.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from prover.lean.check import TRUSTED_AXIOMS, judge
from prover.lean.check_file import checked_file, fresh_names

pytestmark = [
    pytest.mark.lean,
    pytest.mark.skipif(shutil.which("lean") is None, reason="needs a Lean 4 toolchain (`lean` on PATH; install elan)"),
]


def _check(tmp_path: Path, before: str, header: str, proof: str, full_name: str):
    checked = checked_file(before, header, proof, full_name, fresh_names())
    path = tmp_path / "Check.lean"
    path.write_text(checked.text)
    done = subprocess.run(["lean", str(path)], capture_output=True, text=True, timeout=300)
    return judge(done.returncode, done.stdout + done.stderr, checked)


@pytest.mark.parametrize("before,header,proof,full_name", [
    ("", "theorem t (n : Nat) : n + 0 = n :=", "by simp", "t"),
    # universe-polymorphic: compared at generic universes
    ("", "theorem t.{u} {α : Sort u} (a : α) : a = a :=", "by rfl", "t"),
    # private: Lean prints its name as `_private.Check.0.Foo.t`; the alias's line is read
    ("namespace Foo\n", "private theorem t (n : Nat) : n + 0 = n :=", "by simp", "Foo.t"),
    # inside `namespace Foo`, `Foo.t` names `Foo.Foo.t` first; `@_root_.Foo.t` does not
    ("theorem Foo.Foo.t : 1 = 2 := sorry\nnamespace Foo\n", "theorem t : True :=", "by trivial", "Foo.t"),
    # the dotted name is elaborated inside its namespace (`succ` is `Nat.succ`), the statement too
    ("", "theorem Nat.t (n : Nat) : succ n = n + 1 :=", "by rfl", "Nat.t"),
])
def test_honest_proofs_are_accepted(tmp_path, before, header, proof, full_name):
    """Fails if real Lean's answer to an honest proof is refused: the statement's `sorry` counted,
    the alias's line not found or not read, or the alias not compiling."""
    ok, message, axioms = _check(tmp_path, before, header, proof, full_name)
    assert ok, message
    assert set(axioms) <= TRUSTED_AXIOMS


@pytest.mark.parametrize("before,header,proof,fragment", [
    # through an earlier lemma proved by `sorry`
    ("theorem helper : (1 : Nat) = 2 := sorry\n", "theorem t : (1 : Nat) = 2 :=", "by exact helper", "sorryAx"),
    # through a section variable: before Lean v4.10 a hypothesis of the theorem (the alias does not
    # compile), from v4.10 an unknown identifier
    ("section\nvariable (h : (1 : Nat) = 2)\n", "theorem t : (1 : Nat) = 2 :=", "by exact h", "Lean rejected the proof"),
])
def test_proofs_of_less_than_the_header_are_refused(tmp_path, before, header, proof, fragment):
    """Fails if real Lean's answer to a proof through a `sorry` or a section variable is accepted."""
    ok, message, _ = _check(tmp_path, before, header, proof, "t")
    assert not ok and fragment in message
