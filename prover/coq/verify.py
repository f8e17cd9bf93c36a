"""Re-check a proof from scratch, trusting only the kernel: ``coqc`` on the whole file, then ``coqchk``.

The checked file is the theorem's context as text (a stdlib theorem: its file's real text before
it, the signatures of the modules still open dropped, see :func:`prover.coq.context._unsealed`;
an ad-hoc theorem: its prelude), the statement renamed to ``dojo_<nonce>``, ``Proof.``, the
rendered script, ``Qed.``, ``Print Assumptions dojo_<nonce>`` redirected to ``<nonce>.out``, and
the ``End``s of the sections and modules still open there. ``<nonce>`` is fresh random hex per
check, so nothing written before the check (a prelude, a tactic) can name the theorem -- e.g.
make a constant of that name with ``transparent_abstract ... using`` -- or write the report.

A proof counts only when all of this holds:

1. ``coqc`` exits 0 on the whole file. A script that does not end the proof (``intros Qed.``
   swallowing the ``Qed``), that ends a different one, or that leaves a block open is rejected;
   ``Print Assumptions dojo_<nonce>`` fails unless the constant exists, i.e. unless our
   ``Qed`` closed our statement. (coqc refuses a file with open sections or modules at its end,
   so the ``End``s are needed; they close functors without their signatures, so they cannot fail
   for want of the library's later fields.)
2. ``coqchk -o -norec <Module>`` (same ``-Q`` as coqc; it must report interning *our* ``.vo``)
   re-checks the compiled library and accepts it, and its CONTEXT SUMMARY reports a predicative
   ``Set``, no constant relying on type-in-type or unsafe (co)fixpoints, no assumed positivity.
3. Every axiom in that summary, by fully qualified name, is one the standard library itself
   declares: exactly an ``Axiom``/``Parameter``/``Conjecture`` of the index
   (``Coq.Logic.Classical_Prop.classic``), or a field of a module the library declares with
   ``Declare Module`` (``Coq.ssr.ssrunder.Under_rel.Under_rel``), in a library other than the
   checked one -- or, for a stdlib context only, in the checked one. A project's own axioms, its
   ``Admitted`` lemmas included, are never in that list (``index`` is always the stdlib's), so a
   proof in a project's context that assumes one is "not proved (assumes Foo.B.x)". coqchk lists
   the axioms of every library loaded, and a project's files are often downstream of an admitted
   lemma they do not use: for a project's file (``CoqContext.project_file``) an axiom of its
   *other* files is refused when ``Print Assumptions`` names it (qualified through the summary),
   while one its own file declares before the theorem is refused whether used or not, as for an
   ad-hoc prelude. The checked library of an
   ad-hoc theorem is ``DojoScratch``: every axiom it declares (prelude ``Axiom``, ``Admitted``
   lemma, ``Declare Module`` field) makes the proof "not proved (assumes DojoScratch.X)", whether
   or not the proof uses it, and a stdlib name (``classic``) in the prelude is still
   ``DojoScratch.classic``.

coqchk's summary covers every library loaded, so it over-approximates the theorem's axioms;
``Verification.axioms`` is the precise list from ``Print Assumptions`` (qualified through the
summary where it names them; functor parameters such as ``X.lt`` stay as printed).
"""

from __future__ import annotations

import secrets
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from search_tree.protocol import Proof, Verification, proof_tactics

from .additions import annotate
from .context import CoqContext, rename_statement, sealed_module
from .hammer import calls_atp
from .policy import RefusedTactic, check_tactic
from .render import render_proof
from .sandbox import sandbox_env
from .sentences import strip_comments
from .stdlib import block_sentence

AXIOM_KINDS = frozenset({"axiom", "axioms", "parameter", "parameters", "conjecture"})
CLOSED = "Closed under the global context"
CHECKED = "Modules were successfully checked"
PREDICATIVE = "Set is predicative"


class CheckFailed(Exception):
    """One step of the re-check refused the proof; the message says which and why."""


def stdlib_axioms(index) -> frozenset[str]:
    """Qualified names of the axioms and parameters the standard library declares."""
    return frozenset(f"{f.module}.{d.full_name}" for f in index.files.values()
                     for d in f.declarations if d.kind in AXIOM_KINDS)


@lru_cache(maxsize=8)
def stdlib_declared_modules(index) -> frozenset[str]:
    """Qualified names of the modules the standard library declares (``Declare Module M : T``)
    or seals (``Module Export Under_rel : UNDER_REL.``): coqchk lists their fields as axioms."""
    found = set()
    for f in index.files.values():
        text = (index.root / f.path).read_text()
        stack: list[tuple[str, str]] = []
        for start, end in f.sentences:
            block = block_sentence(strip_comments(text[start:end]).strip())
            if block is None:
                continue
            kind, name, _ = block
            if kind == "declare" or (kind == "module" and sealed_module(block[2])):
                found.add(".".join([f.module] + [n for k, n in stack if k == "module"] + [name]))
            if kind in ("section", "module"):
                stack.append((kind, name))
            elif kind == "end" and stack:
                stack.pop()
    return frozenset(found)


def verification_source(context: CoqContext, script: str, name: str, report: str) -> str:
    """The ``.v`` text that :func:`verify_proof` compiles, the theorem named ``name``, its
    assumptions redirected to ``report`` (see the module docstring)."""
    body = "\n".join("  " + line for line in script.splitlines())
    return (f"{context.source_prefix.rstrip()}\n{rename_statement(context.statement, name)}\nProof.\n{body}\nQed.\n"
            f"Set Printing Width 1000000.\n"
            f"Redirect \"{report}\" Print Assumptions {name}.\n"
            + "".join(line + "\n" for line in context.closing))


def verify_proof(context: CoqContext, proof: Proof, index, timeout: float = 600.0) -> Verification:
    """Compile the proof with coqc, re-check it with coqchk, check its axioms (module docstring)."""
    if not proof:
        return Verification(False, "empty proof")
    try:
        for tactic in proof_tactics(proof):
            check_tactic(tactic)
            if calls_atp(tactic):
                raise ValueError(f"{tactic!r} calls an external prover: a checked proof holds its reconstruction "
                                 f"tactic instead (see prover.coq.hammer)")
        script = render_proof(proof)
    except (RefusedTactic, ValueError) as exc:
        return Verification(False, str(exc))
    nonce = secrets.token_hex(8)
    deadline = time.monotonic() + timeout
    dirpath, _, base = context.module.rpartition(".")
    with tempfile.TemporaryDirectory(prefix="dojo-coq-verify-") as tmp:
        try:
            report = _compile(context, script, nonce, Path(tmp), base, dirpath, deadline)
            summary = _coqchk(context, Path(tmp) / f"{base}.vo", dirpath, deadline)
        except CheckFailed as exc:
            return Verification(False, str(exc), script)
    script = annotate(context, script)  # the additions are part of the proof, printed with it
    axioms = _qualified(parse_assumptions(report), summary)
    own = context.module + "."
    trusted = stdlib_axioms(index)
    declared = stdlib_declared_modules(index)
    used = set(axioms)
    refused = [a for a in summary if not (
        (context.trusted_prefix or not a.startswith(own))
        and (a in trusted or a.rpartition(".")[0] in declared
             or (context.project_file and not a.startswith(own) and a not in used)))]
    if refused:
        return Verification(False, f"not proved (assumes {', '.join(refused)}): coqchk lists axioms the standard "
                                   f"library does not declare (prelude axioms, admitted lemmas, declared modules)",
                            script, tuple(axioms))
    return Verification(True, "coqc and coqchk accepted the proof; " + (
        f"it assumes only the library's own axioms or functor parameters: {axioms}" if axioms else CLOSED),
        script, tuple(axioms))


def _compile(context: CoqContext, script: str, nonce: str, tmp: Path, base: str, dirpath: str,
             deadline: float) -> str:
    """Run coqc on the whole file (exit 0 required); the text of the assumptions report."""
    report = f"dojo_assumptions_{nonce}"
    (tmp / f"{base}.v").write_text(verification_source(context, script, f"dojo_{nonce}", report))
    # the project's bindings first: a later -Q wins, so the checked file is ours, not the project's
    cmd = (["coqc", "-q", *context.load_path, *context.options, "-Q", str(tmp), dirpath]
           + (["-noinit"] if context.noinit else []) + [f"{base}.v"])
    done = _run(cmd, tmp, deadline, "coqc")
    if done.returncode != 0:
        raise CheckFailed(f"coqc rejected the proof (exit {done.returncode}): {_last_error(done.stderr + done.stdout)}")
    out = tmp / f"{report}.out"
    if not out.exists():
        raise CheckFailed("coqc exited 0 but wrote no assumptions report")
    return out.read_text()


def _coqchk(context: CoqContext, vo: Path, dirpath: str, deadline: float) -> list[str]:
    """Re-check the compiled library with coqchk (the project's load path, then ours); the axioms
    of its context summary, qualified."""
    module = context.module
    done = _run(["coqchk", "-o", "-norec", module, *context.load_path, "-Q", str(vo.parent), dirpath], vo.parent,
                deadline, "coqchk")
    text = done.stdout + done.stderr
    if done.returncode != 0 or CHECKED not in text:
        raise CheckFailed(f"coqchk rejected the compiled proof (exit {done.returncode}): {_last_error(text)}")
    if f"[intern {vo} ..." not in text:
        raise CheckFailed(f"coqchk did not check the compiled file {vo.name} (it resolved {module} elsewhere)")
    axioms, unsafe = parse_summary(text)
    if unsafe:
        raise CheckFailed("the proof relies on unsafe features: " + "; ".join(unsafe))
    return axioms


def parse_summary(text: str) -> tuple[list[str], list[str]]:
    """(axioms, unsafe findings) of coqchk's ``CONTEXT SUMMARY``; a summary that is missing or has
    a section this parser does not know is an unsafe finding (fail closed)."""
    at = text.find("CONTEXT SUMMARY")
    if at < 0:
        return [], ["coqchk printed no context summary"]
    sections: dict[str, list[str]] = {}
    header = None
    for line in text[at:].splitlines()[2:]:
        if line.startswith("* "):
            header, _, rest = line[2:].partition(":")
            sections[header] = [rest.strip()] if rest.strip() else []
        elif line.strip() and header is not None:
            sections[header].append(line.strip())
    unsafe = [f"{h}: {', '.join(v)}" for h, v in sections.items()
              if h not in ("Theory", "Axioms") and v != ["<none>"]]
    if sections.get("Theory") != [PREDICATIVE]:
        unsafe.append(f"Theory: {', '.join(sections.get('Theory', ['missing']))}")
    return [a for a in sections.get("Axioms", []) if a != "<none>"], unsafe


def parse_assumptions(report: str) -> list[str]:
    """The axiom names of a ``Print Assumptions`` report (section variables and flags left out:
    coqchk decides about those)."""
    axioms: list[str] = []
    section = None
    for line in report.splitlines():
        if not line.strip() or line.strip() == CLOSED:
            continue
        if line.endswith(":") and not line.startswith(" "):
            section = line[:-1]
        elif section == "Axioms" and not line.startswith(" "):
            axioms.append(line.split(" : ", 1)[0].strip())
    return axioms


def _qualified(names: list[str], summary: list[str]) -> list[str]:
    """Each printed name as the one qualified name of the summary it abbreviates, if exactly one."""
    out = []
    for name in names:
        matches = [q for q in summary if q == name or q.endswith("." + name)]
        out.append(matches[0] if len(matches) == 1 else name)
    return out


def _run(cmd: list[str], cwd: Path, deadline: float, what: str) -> subprocess.CompletedProcess:
    """Run ``cmd`` in the check's own fresh directory ``cwd``, which is also its sandbox (``HOME``,
    ``TMPDIR``: :func:`prover.coq.sandbox.sandbox_env`)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise CheckFailed(f"{what} not started: the verification timeout ran out")
    try:
        return subprocess.run(cmd, cwd=cwd, env=sandbox_env(cwd), capture_output=True, text=True, timeout=left,
                              check=False)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"{what} timed out (verification timeout)") from None


def _last_error(text: str) -> str:
    at = text.rfind("Error")
    return " ".join((text[at:] if at >= 0 else text[-600:]).split())[:600]
