"""Re-check a proof from scratch with ``coqc`` and refuse axioms the library does not use.

The checked file is the theorem's real file text before it (not the elided prefix coqtop ran),
the statement, ``Proof.``, the rendered script, ``Qed.``, ``Print Assumptions`` redirected to a
file, and the ``End``s of the sections and modules still open there. The verdict rests on what
comes before ``Print Assumptions``: coqc stops at the first error, so its report exists only if
the kernel accepted the proof at ``Qed``. An error in the closing ``End``s is ignored: closing a
functor early checks it against its signature (``Module Make (X : T) <: S``), whose later fields
are, by construction, missing. It is compiled under the file's own logical name (``-Q <tmp> Coq.Arith`` for
``Coq/Arith/PeanoNat.v``, with ``-noinit`` for ``Init/``) so that qualified names inside the file
mean what they mean in the library; nothing requires the module itself, so the installed ``.vo``
of the same name is never loaded.

Axiom rule. ``Print Assumptions`` lists section variables (legitimate: a section's hypotheses are
part of its lemmas' statements), axioms, and unsafe flags (type-in-type, assumed guard or
positivity). The proof is accepted only if every axiom it lists is an axiom or parameter that the
standard library itself declares (``Axiom``/``Parameter``/``Conjecture`` sentences of
``theories/``, such as ``classic`` or ``functional_extensionality_dep``) or, for a stdlib theorem
inside a functor, a field of one of the functor's parameters (``X.lt`` in ``Module Make (X :
OrderedType)``), and no unsafe flag is listed. A lemma proved with ``Admitted`` is printed as an axiom under its own name, so it is
refused by the same rule. In an ad-hoc context, whose prelude is the user's text, an axiom whose
name also occurs in that prelude is refused even if a stdlib axiom has the same name.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from search_tree.protocol import Proof, Verification, proof_tactics

from .context import CoqContext
from .policy import RefusedTactic, check_tactic
from .render import render_proof

AXIOM_KINDS = frozenset({"axiom", "axioms", "parameter", "parameters", "conjecture"})
CLOSED = "Closed under the global context"
ASSUMPTIONS_FILE = "assumptions"  # Redirect appends ".out"


def stdlib_axioms(index) -> frozenset[str]:
    """Qualified names of the axioms and parameters the standard library declares."""
    return frozenset(f"{f.module}.{d.full_name}" for f in index.files.values()
                     for d in f.declarations if d.kind in AXIOM_KINDS)


def verification_source(context: CoqContext, script: str) -> str:
    """The ``.v`` text that :func:`verify_proof` compiles."""
    body = "\n".join("  " + line for line in script.splitlines())
    return (f"{context.source_prefix.rstrip()}\n{context.statement}\nProof.\n{body}\nQed.\n"
            f"Set Printing Width 1000000.\n"
            f"Redirect \"{ASSUMPTIONS_FILE}\" Print Assumptions {context.name}.\n"
            + "".join(line + "\n" for line in context.closing))


def verify_proof(context: CoqContext, proof: Proof, index, timeout: float = 600.0) -> Verification:
    """Compile the proof with coqc and check its assumptions (see the module docstring)."""
    if not proof:
        return Verification(False, "empty proof")
    try:
        for tactic in proof_tactics(proof):
            check_tactic(tactic)
        script = render_proof(proof)
    except (RefusedTactic, ValueError) as exc:
        return Verification(False, str(exc))
    source = verification_source(context, script)
    dirpath, _, base = context.module.rpartition(".")
    with tempfile.TemporaryDirectory(prefix="dojo-coq-verify-") as tmp:
        path = Path(tmp) / f"{base}.v"
        path.write_text(source)
        cmd = ["coqc", "-q", "-Q", tmp, dirpath] + (["-noinit"] if context.noinit else []) + [path.name]
        try:
            done = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return Verification(False, f"coqc timed out after {timeout}s", script)
        out = Path(tmp) / f"{ASSUMPTIONS_FILE}.out"
        if not out.exists():  # coqc stops at the first error, so it came before Print Assumptions
            why = _last_error(done.stderr + done.stdout) if done.returncode else "Print Assumptions printed nothing"
            return Verification(False, "coqc rejected the proof: " + why, script)
        report = out.read_text()
    axioms, unsafe = parse_assumptions(report)
    if unsafe:
        return Verification(False, f"the proof relies on unsafe features: {unsafe}", script, tuple(axioms))
    allowed = stdlib_axioms(index)
    refused = [a for a in axioms if not _allowed(a, allowed, context)]
    if refused:
        return Verification(False, f"the proof relies on axioms the standard library does not declare "
                                   f"(or on admitted lemmas): {refused}", script, tuple(axioms))
    return Verification(True, "coqc accepted the proof; " + (f"assumes only the library's own axioms or functor "
                                                            f"parameters: {axioms}" if axioms else CLOSED),
                        script, tuple(axioms))


def parse_assumptions(report: str) -> tuple[list[str], list[str]]:
    """(axiom names, unsafe-feature headers) of a ``Print Assumptions`` report."""
    axioms: list[str] = []
    unsafe: list[str] = []
    section = None
    for line in report.splitlines():
        if not line.strip() or line.strip() == CLOSED:
            continue
        if line.endswith(":") and not line.startswith(" "):
            section = line[:-1]
            if section not in ("Axioms", "Section Variables"):
                unsafe.append(section)
            continue
        if section == "Axioms" and not line.startswith(" "):
            axioms.append(line.split(" : ", 1)[0].strip())
    return axioms, unsafe


def _allowed(name: str, stdlib: frozenset[str], context: CoqContext) -> bool:
    short = name.rsplit(".", 1)[-1]
    if not context.trusted_prefix and re.search(rf"(?<![\w']){re.escape(short)}(?![\w'])", context.source_prefix):
        return False
    if any(q == name or q.endswith("." + name) for q in stdlib):
        return True
    # inside the library's own functors, fields of their parameters print as axioms (X.lt)
    return context.trusted_prefix and "." in name and name.split(".", 1)[0] in context.module_parameters


def _last_error(text: str) -> str:
    at = text.rfind("Error")
    return " ".join((text[at:] if at >= 0 else text[-600:]).split())[:600]
