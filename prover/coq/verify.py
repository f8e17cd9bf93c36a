"""Re-check a proof from scratch, trusting only the kernel: ``coqc`` on the whole file, then ``coqchk``.

The checked file is the theorem's context as text (a stdlib theorem: its file's real text before
it, the signatures of the modules still open dropped, see :func:`prover.coq.context._unsealed`;
an ad-hoc theorem: its prelude), the statement renamed to ``dojo_<nonce>``, ``Proof.`` (or the
file's own ``Proof using ...``: :attr:`prover.coq.context.CoqContext.proof_opening`), the
rendered script, ``Qed.``, ``Print Assumptions dojo_<nonce>`` redirected to ``<nonce>.out`` (one
line per entry and no notations: a notation that printed ``False`` as ``F:`` made an axiom's
entry read as a heading, so a used admitted lemma passed for unused), and the ``End``s of the
sections and modules still open there. ``<nonce>`` is fresh random hex per
check, so nothing written before the check (a prelude, a tactic) can name the theorem -- e.g.
make a constant of that name with ``transparent_abstract ... using`` -- or write the report.

A proof counts only when all of this holds:

1. ``coqc`` exits 0 on the whole file. A script that does not end the proof (``intros Qed.``
   swallowing the ``Qed``), that ends a different one, or that leaves a block open is rejected;
   ``Print Assumptions dojo_<nonce>`` fails unless the constant exists, i.e. unless our
   ``Qed`` closed our statement. (coqc refuses a file with open sections or modules at its end,
   so the ``End``s are needed; they close functors without their signatures, so they cannot fail
   for want of the library's later fields.)
2. ``coqchk -o -norec <Module>`` (same ``-Q`` as coqc) re-checks the compiled library and
   accepts it; every library it loaded comes from where its name says it must (*our* ``.vo``
   for the checked one, ``$(coqc -where)`` for ``Coq.*``, ``user-contrib`` for an installed
   library: :mod:`prover.coq.provenance`); and its CONTEXT SUMMARY reports a predicative ``Set``,
   no constant relying on type-in-type or unsafe (co)fixpoints, no assumed positivity.
3. The axioms are trusted ones (:mod:`prover.coq.trusted_axioms`, a reviewed list of exact
   kernel names): each name ``Print Assumptions`` prints resolves to exactly one axiom of
   coqchk's summary, and a trusted one (:func:`prover.coq.assumptions.resolve`, fail closed;
   a field of a functor parameter of the modules open at the theorem, such as ``X.lt``, is a
   parameter of the statement, not an axiom (never a name under a library coqchk loaded, whatever
   the parameter is called), and so, in a stdlib theorem's context, is any name
   of the stdlib's own modules still open there that coqchk does not list); and every axiom of the
   summary is trusted, with one exception. coqchk lists the axioms of every library loaded, and a
   project's files are often downstream of an admitted lemma they do not use, or hold one before
   the theorem: for a project's file (``CoqContext.project_file``) an untrusted axiom is refused
   only when the theorem may use it. One of its *other* files is when ``Print Assumptions`` names
   it (resolved as above); one of the checked library itself -- the file's own text before the
   theorem: an ``Admitted`` lemma, an ``Axiom``, a ``Declare Module`` field -- is when any entry
   ``Print Assumptions`` prints ends in its label, however that entry resolved
   (:func:`refused_axioms`). A constant keeps its label through aliases, functor applications and
   ``Include``, and ``Print Assumptions`` lists every axiom a term reaches through the bodies of
   the constants it uses (opaque ones and sealed modules' implementations included); a term that
   reaches none proves the statement for every value of the axioms it does not use, so leaving
   them out is sound. The label is taken whatever the entry resolved to (an axiom, a parameter's
   field, nothing), so that the rule does not rest on resolution where it is weakest, the file's
   own names: a ``Declare Module E`` inside a module still open at the theorem is among the open
   modules' parameters (only ``Locate Module`` keeps ``E.f`` from passing for a parameter's
   field), yet its fields are axioms of the summary once the module closes. An own axiom is
   never trusted, whatever its name (the checked library is the project's module, never
   ``Coq.*``). Where the statement itself would be refused so (``Print Assumptions`` of its
   meaning, 5., names such an axiom: ``Parameter a : A.`` then ``Lemma t : a = a.``), a refusal
   says so (:data:`STATEMENT_NEEDS`) and a search ends on it rather than refuse proof after proof:
   a proof's term mentions what its type needs, or an untrusted axiom whose type does (``exact
   h.`` for ``h : a = a`` prints ``h``, not ``a``: ``Print Assumptions`` does not read an axiom's
   type), unless reduction removes it. A statement whose axiom reduces away (``(fun _ => True) a``)
   is counted too: its search may end where a proof avoiding the axiom exists, but no proof is
   accepted for it. Elsewhere an untrusted axiom the checked
   library declares or loads is refused whether used or not: an ad-hoc theorem's checked library
   is ``DojoScratch``, whose every axiom is its prelude's (a prelude's ``classic`` is
   ``DojoScratch.classic``), and a stdlib theorem's context is the stdlib's own text, the only one
   that may declare a trusted axiom.

4. For a reopened context (:mod:`prover.coq.reopened`: a context addition loads the compiled
   copy of the theorem's own module), the proof's term depends on no object of that compiled
   module that the theorem's own context lacks -- the theorem itself and what its file declares
   after it (:mod:`prover.coq.dependencies`): the file prints both dependency graphs once the
   theorem's sections are closed, a second small file locates the compiled objects they share,
   and a graph or a location missing or unreadable fails the check (:data:`LEAK_UNCHECKED`: the
   checker's environment, not the proof, is at fault, so a search ends there).

5. The statement means what it means in the theorem's own context. Context additions
   (:mod:`prover.coq.additions`) stand right before the statement, and what they import can
   shadow a name it uses (after ``Require Import ArithRing``, a file's own ``IDphi`` is
   ``Ring_theory.IDphi``) and so change what it says. So the file first elaborates the
   statement's type without them, ``Definition dojo_<nonce>_meaning := forall _ : True, T``
   (:func:`prover.coq.context.statement_type`; the dummy binder makes ``T`` a type, as in a
   ``Lemma``, so that a coercion to a sort applies the same way), and after the ``Qed``
   ``Definition dojo_<nonce>_pinned : dojo_<nonce>_meaning := fun _ => @dojo_<nonce>``: the kernel
   accepts it only when the proved type is convertible to the one the theorem's own context
   gives, i.e. when the proof proves the original statement. The same pin holds where a copy
   of the declared lemma stands before the statement (6.): a file's proof may hold a
   ``Notation`` that would otherwise change what the statement says.

6. Inside a section, the proof uses only section variables the declared lemma abstracts over
   (once the section closes a lemma states ``forall`` the variables its statement and its proof
   use, so one proved by ``Hypothesis H : False`` would state less). The file's own proof is
   compiled as a copy of the lemma, after the meaning's definition (so nothing in it can change
   what the statement says, 5. pins it) and under a name of its own, and
   :func:`section_variables_problem` compares what ``Print Assumptions`` lists for the two and
   for the statement; for an admitted lemma, ``Test Keep Admitted Variables`` says whether it
   keeps every section variable. A proof that took in variables it need not have (``intuition``
   takes the whole context) is checked once more after ``clear`` of them (:func:`_cleared`), and
   the script reported holds that ``clear``. ``Print Assumptions`` does not look into the types of the
   constants a body uses, where closing a section does; a variable reached only that way is one
   the proof's term never uses, so dropping it loses nothing.

7. The universe relations the proof adds among the universes before its statement and its own
   (none for most proofs) are consistent with the development's final universe graph, which the
   check file cannot see (:mod:`prover.coq.final_universes`).

Each sentence from the statement to the pin runs under ``Set Default Timeout`` (the search's
per-tactic limit, with slack), and the whole check under one deadline, so no proof can make
the check run longer than the search that found it allowed.

``Verification.axioms`` is the precise list from ``Print Assumptions``, by kernel name
(functor parameters as printed); :func:`uses` writes it for people (``classic
(Coq.Logic.Classical_Prop)``).
"""

from __future__ import annotations

import math
import re
import secrets
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prover.defaults import RUN
from search_tree.protocol import Proof, Verification, proof_tactics
from search_tree.safe_files import UnsafePath, read_regular

from .additions import annotate
from .assumptions import (CHECKED, CLOSED, Resolution, last_error, parse_assumptions, parse_loaded, parse_summary, resolve,
                          section_variables)
from .checked_vo import check, unchecked
from .context import CoqContext, rename_statement, statement_type, universe_binder
from .dependencies import DependencyError, candidates, graph_sentences, locate_source, untwinned
from .final_universes import universe_refusal
from .hammer import calls_atp
from .policy import RefusedTactic, check_tactic
from .provenance import ForeignLibrary, bindings, check_loaded, checker_load_path
from .render import render_proof
from .reopened import compiled_module, open_sections
from .sentences import strip_comments
from .syntax import NAME
from .sandbox import confined, sandbox_env
from .trusted_axioms import is_trusted, label
from .universes import after_qed, at_statement, before_statement

#: how the message of a proof refused by the leak check begins (:mod:`prover.coq.dependencies`)
LEAK_REFUSED = "refused (leak check)"
#: how the message begins where the leak check could not run: the dependency graphs or the
#: locations of what they name missing or unreadable (coq-dpdgraph not installed, or broken). Not a
#: property of the proof but of the checker's environment, which every other proof of the theorem
#: meets as well: a search ends on it (:meth:`prover.coq.env.CoqEnvironment._finish_refusal`)
#: instead of refusing each proof it finds until its time runs out
LEAK_UNCHECKED = "not checked (leak check)"
#: how the message of a proof refused for what it assumes begins (module docstring, 3.)
ASSUMES_REFUSED = "not proved (assumes"
#: what the message of such a refusal adds where no proof of the statement can pass: its context
#: itself declares or loads an untrusted axiom, refused whether the proof uses it or not
WHATEVER_THE_PROOF = "the theorem's context declares or loads an untrusted axiom, refused whether used or not"
#: what the message of such a refusal adds in a project's file where the statement itself needs an
#: axiom that is refused where used (``Parameter a : A.`` then ``Lemma t : a = a.``): ``Print
#: Assumptions`` of the statement's meaning lists it, so every proof of it is refused too
STATEMENT_NEEDS = "no proof of it can pass: the statement itself needs"
#: how the message of a section lemma's proof refused for the section variables it uses begins
#: (:func:`section_variables_problem`): another proof may not need them, so a search refuses that
#: step and goes on (:meth:`prover.coq.env.CoqEnvironment._finish_refusal`)
SECTION_VARIABLES_REFUSED = "the proof uses the section variable(s)"


def unavoidable(message: str) -> bool:
    """Whether the refusal ``message`` is one no proof of the statement can escape
    (:data:`WHATEVER_THE_PROOF`, :data:`STATEMENT_NEEDS`): a search ends on it rather than refuse
    proof after proof until its time runs out (:meth:`prover.coq.env.CoqEnvironment._finish_refusal`)."""
    return WHATEVER_THE_PROOF in message or STATEMENT_NEEDS in message


class CheckFailed(Exception):
    """One step of the re-check refused the proof; the message says which and why."""


class Unabstracted(CheckFailed):
    """The proof uses section variables the declared lemma does not abstract over (``variables``)."""

    def __init__(self, message: str, variables: tuple[str, ...]) -> None:
        super().__init__(message)
        self.variables = variables


def verification_source(context: CoqContext, script: str, name: str, report: str,
                        sentence_timeout: int | None = None, graphs: Path | None = None, probe: bool = True) -> str:
    """The ``.v`` text that :func:`verify_proof` compiles, the theorem named ``name``, its
    assumptions redirected to ``report``, each sentence from the statement to the meaning's pin
    limited to ``sentence_timeout`` seconds (see the module docstring; :class:`CheckFailed` if the
    statement's meaning cannot be pinned). For a reopened context, ``graphs`` is where the
    dependency graphs of the leak check are written, once the sections around the theorem are
    closed (:mod:`prover.coq.dependencies`). In a project's file the statement's own assumptions
    are redirected to ``report_statement`` too (:func:`statement_probed`), unless ``probe`` is
    False: they tell a refused axiom no proof can avoid from one this proof chose."""
    body = "\n".join("  " + line for line in script.splitlines())
    limit, unlimit = (f"Set Default Timeout {sentence_timeout}.\n", "Unset Default Timeout.\n") \
        if sentence_timeout else ("", "")
    closing = list(context.closing)
    sections = open_sections(context)
    compiled = compiled_module(context)
    if compiled is not None:
        if graphs is None:
            raise ValueError(f"{context.module}: a reopened context is checked with its dependency graphs")
        closing[sections:sections] = graph_sentences(name, compiled, graphs, name)
    declared, pin = compares_section_variables(context), _pinned(context)
    probed = statement_probed(context) and (probe or pin)
    meaning, pinned = "", ""
    if pin or probed:  # additions and the declared copy put text before the statement: its meaning is pinned first
        try:
            meaning = (f"Definition {name}_meaning{universe_binder(context.statement)} := "
                       f"forall _ : True, {statement_type(context.statement)}.\n")
        except ValueError as exc:
            raise CheckFailed(f"what the statement means cannot be pinned: {exc}") from None
    if pin:
        pinned = f"Definition {name}_pinned : {name}_meaning := fun _ => @{name}.\n"
    additions = "".join(s + "\n" for s in context.additions)
    copied, compare = "", ""
    if declared or probed:
        compare = f"Redirect \"{report}_statement\" Print Assumptions {name}_meaning.\n"
    if declared:
        compare += f"Redirect \"{report}_keep\" Test Keep Admitted Variables.\n"
        if not _admitted(context):  # an admitted copy would be an axiom of the checked module
            # a name of its own: the file's proof runs in the copy, and must not learn the checked one
            copy = f"dojo_{secrets.token_hex(8)}_declared"
            copied = f"{rename_statement(context.statement, copy)}{context.declared_proof}\n"
            compare += f"Redirect \"{report}_declared\" Print Assumptions {copy}.\n"
    univ = f"{report}_universes"  # the universe reports (prover.coq.universes)
    return (f"{context.source_prefix.rstrip()}\n{meaning}{copied}{additions}{before_statement(univ)}{limit}"
            f"{rename_statement(context.statement, name)}\n{context.proof_opening}\n{at_statement(univ)}{body}\nQed.\n"
            f"{after_qed(univ, name)}{pinned}{unlimit}Set Printing Width 1000000.\nUnset Printing Notations.\n"
            f"Redirect \"{report}\" Print Assumptions {name}.\n{compare}"
            + "".join(f"Redirect \"{report}_parameter_{k}\" Locate Module {parameter}.\n"
                      for k, parameter in enumerate(_parameters_to_locate(context)))
            + "".join(line + "\n" for line in closing))


def _pinned(context: CoqContext) -> bool:
    """Whether the check pins the statement's meaning (module docstring, 5.): where context
    additions or the copy of the declared lemma stand before the statement."""
    return bool(context.additions) or compares_section_variables(context)


def statement_probed(context: CoqContext) -> bool:
    """Whether the check reads what the statement itself assumes, ``Print Assumptions`` of its
    meaning: in a project's file, whose own axioms are refused only where used (module docstring,
    3.), so that a refused axiom the statement needs (every proof is refused for it) ends a search
    at once instead of costing its whole time (:data:`STATEMENT_NEEDS`). Where the meaning is not
    pinned anyway, only a statement :func:`prover.coq.context.statement_type` reads is probed, and
    a file coqc rejects with the probe is compiled again without it (:func:`_compile`), so the
    probe never costs a proof."""
    if not context.project_file:
        return False
    if _pinned(context):
        return True
    try:
        statement_type(context.statement)
    except ValueError:
        return False
    return True


def compares_section_variables(context: CoqContext) -> bool:
    """Whether the check compiles the declared lemma beside the proof to compare the section
    variables they use: for a theorem of a file inside a section. Once the section closes, a lemma
    abstracts over the section variables its statement and its proof use (and for ``Admitted``,
    unless ``Keep Admitted Variables`` is off, all of them), so a proof using a hypothesis the
    declared lemma does not (``Hypothesis H : False``) proves a weaker statement than the file's."""
    return context.declared_proof is not None and open_sections(context) > 0


def _admitted(context: CoqContext) -> bool:
    """Whether the file admits the theorem (its proof ends in ``Admitted.``)."""
    return re.search(r"(?<![\w'.])Admitted\s*\.\s*\Z", strip_comments(context.declared_proof or "")) is not None


def section_variables_problem(ours: str, statement: str, keep: str, declared: str | None) -> Unabstracted | None:
    """Why the proof proves less than the declared lemma, from the ``Print Assumptions`` reports
    of the proof (``ours``) and of the statement alone (``statement``), ``Test Keep Admitted
    Variables`` (``keep``), and the report of the declared lemma compiled with the file's own proof
    (``declared``; None where the file admits it); None if every section variable the proof uses
    is one the declared lemma abstracts over. Fails closed on a report it cannot read."""
    allowed = section_variables(statement)
    if declared is not None:
        allowed |= section_variables(declared)
    elif keep.split() == ["Keep", "Admitted", "Variables", "is", "on"]:
        return None  # an admitted lemma keeps every section variable (or its Proof using's, which coqc enforces)
    elif keep.split() != ["Keep", "Admitted", "Variables", "is", "off"]:
        return Unabstracted(f"cannot read whether Keep Admitted Variables is on ({keep.strip()[:200]!r})", ())
    extra = tuple(sorted(section_variables(ours) - allowed))
    if extra:
        return Unabstracted(f"{SECTION_VARIABLES_REFUSED} {', '.join(extra)}, which the lemma as its file "
                            f"declares it does not abstract over (it uses {', '.join(sorted(allowed)) or 'none'}): "
                            "once the section closes it would prove a weaker statement", extra)
    return None


def _cleared(script: str, problem: Unabstracted) -> str | None:
    """``script`` run after clearing the section variables it used but need not have (``intuition``
    takes every one in the context into its term: ``Eqsth : Equivalence (@eq R)`` came out over
    ``rO``, ``radd``...); None where there is nothing to clear or a name is not an identifier."""
    if not problem.variables or not all(re.fullmatch(NAME, v) for v in problem.variables):
        return None
    return f"clear {' '.join(problem.variables)}.\n{script}"


def _parameters_to_locate(context: CoqContext) -> tuple[str, ...]:
    """The functor parameters whose fields the check accepts only if no other module bears their
    name: outside the stdlib's own text, a module named like a parameter (``Module Q. Module Impl.
    Axiom bad ...``, imported) made its axiom print as ``Impl.bad``, a field of ``Impl``."""
    return () if context.trusted_prefix else tuple(context.module_parameters)


def verify_proof(context: CoqContext, proof: Proof, timeout: float = RUN.verify,
                 sentence_timeout: float | None = None) -> Verification:
    """Compile the proof with coqc, re-check it with coqchk, check its axioms (module docstring).

    ``timeout`` bounds the whole check (coqc and coqchk), ``sentence_timeout`` each sentence of
    the proof, ``Qed`` included (None: no limit but ``timeout``)."""
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
    limit = None if sentence_timeout is None else max(1, math.ceil(sentence_timeout))
    dirpath, _, base = context.module.rpartition(".")
    with tempfile.TemporaryDirectory(prefix="dojo-coq-verify-") as tmp:
        try:
            try:
                compiled = _compile(context, script, nonce, Path(tmp), base, dirpath, deadline, limit)
            except Unabstracted as problem:  # once more, without the variables it need not have used
                cleared, again = _cleared(script, problem), secrets.token_hex(8)
                if cleared is None:
                    raise
                try:
                    compiled = _compile(context, cleared, again, Path(tmp), base, dirpath, deadline, limit)
                except CheckFailed:
                    raise problem from None  # it needs them: say so, not what clearing them broke
                script, nonce = cleared, again
            summary, libraries = _coqchk(context, Path(tmp) / f"{base}.vo", dirpath, f"dojo_{nonce}", deadline)
            leaked = _leaked(context, nonce, Path(tmp), dirpath, deadline)
            universes = universe_refusal(context, Path(tmp) / f"dojo_assumptions_{nonce}", f"dojo_{nonce}", deadline)
        except CheckFailed as exc:
            return Verification(False, str(exc), script)
        except DependencyError as exc:
            return Verification(False, f"{LEAK_UNCHECKED}: its dependencies could not be read ({exc}); no proof of "
                                       "this theorem in its reopened context can pass here", script)
    if leaked:
        return Verification(False, f"{LEAK_REFUSED}: its term depends on {', '.join(leaked[:5])}"
                                   f"{' ...' if len(leaked) > 5 else ''} of the compiled {compiled_module(context)}, "
                                   f"which the theorem's own context does not have (the theorem itself or what its "
                                   f"file declares after it)", annotate(context, script))
    script = annotate(context, script)  # the additions are part of the proof, printed with it

    def resolved(printed: list[str]) -> Resolution:
        return resolve(printed, summary, compiled.parameters,
                       trusted_scope=context.trusted_prefix and bool(context.closing), libraries=libraries,
                       exact_only=context.inside_module and not context.trusted_prefix)

    printed = parse_assumptions(compiled.report)
    resolution = resolved(printed)
    axioms = resolution.names + resolution.parameters
    refused = refused_axioms(context, summary, resolution, printed)
    # where no other proof can pass, say so: a context that refuses its own axioms whether used or
    # not, or a statement that itself needs a refused axiom
    unconditional = ""
    if refused and not context.project_file:
        unconditional = f"; {WHATEVER_THE_PROOF}"
    elif refused and compiled.statement is not None:
        stated = parse_assumptions(compiled.statement)
        needed = refused_axioms(context, summary, resolved(stated), stated)
        unconditional = f"; {STATEMENT_NEEDS} {', '.join(needed)}" if needed else ""
    if resolution.unresolved:
        return Verification(False, f"{ASSUMES_REFUSED} {'; '.join(resolution.unresolved)}): an assumption that "
                                   f"cannot be resolved to one trusted axiom is refused{unconditional}", script, axioms)
    if refused:
        return Verification(False, f"{ASSUMES_REFUSED} {', '.join(refused)}): only the axioms listed in "
                                   f"prover/coq/trusted_axioms.py may be assumed{unconditional}", script, axioms)
    if universes is not None:  # prover.coq.final_universes
        return Verification(False, universes, script, axioms)
    return Verification(True, "coqc and coqchk accepted the proof; " + (
        f"it uses {uses(axioms)}" if axioms else CLOSED), script, axioms)


def refused_axioms(context: CoqContext, summary: list[str], resolution: Resolution,
                   printed: Sequence[str]) -> list[str]:
    """The axioms of coqchk's ``summary`` that make the proof not proved (module docstring, 3.),
    given the resolved ``Print Assumptions`` report and the entries it ``printed``.

    In a project's file, an untrusted axiom the proof does not use is left out: one of another
    file where no printed name resolved to it; one of the checked library itself (the file's own
    text before the theorem) only where no printed entry ends in its label at all, whatever it
    resolved to (a parameter's field, nothing), since a constant keeps its label however it is
    printed: this does not rest on resolution, which is weakest for the file's own names (a
    ``Declare Module E`` inside a module open at the theorem is one of the open modules'
    parameters, its ``E.f`` an axiom once that module closes). Elsewhere every untrusted axiom is
    refused, used or not."""
    own = context.module + "."
    used = set(resolution.names)
    labels = {label(entry.split()[0]) for entry in printed if entry.split()}
    refused = []
    for name in summary:
        if is_trusted(name) and (context.trusted_prefix or not name.startswith(own)):
            continue
        if context.project_file and name not in used and (not name.startswith(own) or label(name) not in labels):
            continue  # an axiom the theorem does not use (resolution refuses look-alikes)
        refused.append(name)
    return refused


def uses(axioms: Sequence[str]) -> str:
    """The axioms of a proof as a Coq user reads them (``classic (Coq.Logic.Classical_Prop)``),
    the parameters of the modules open at the theorem (``X.lt``) only counted."""
    named = [f"{short} ({module})" for module, _, short in (a.rpartition(".") for a in axioms if is_trusted(a))]
    parameters = sum(not is_trusted(a) for a in axioms)
    return ", ".join(named + ([f"{parameters} parameter(s) of the modules open at the theorem"] if parameters else []))


@dataclass(frozen=True)
class _Compiled:
    """What coqc wrote of a checked file (:func:`_compile`)."""

    report: str  # Print Assumptions of the proof
    parameters: tuple[str, ...]  # the functor parameters no other module shares a name with
    statement: str | None  # Print Assumptions of the statement's meaning, where probed (statement_probed)


def _compile(context: CoqContext, script: str, nonce: str, tmp: Path, base: str, dirpath: str,
             deadline: float, sentence_timeout: int | None = None) -> _Compiled:
    """Run coqc on the whole file (exit 0 required); the text of the assumptions report, the
    functor parameters no other module shares a name with (``Locate Module X`` names only ``X``),
    and the statement's own assumptions where they are probed (:func:`statement_probed`). A file
    coqc rejects with a probe that is not also the meaning's pin is compiled once more without it,
    so that the probe (a statement whose ``Definition`` misreads) never costs a proof.

    The report and the ``.vo`` are written at absolute paths: the file's text before the theorem
    may be a project's, whose code runs in this coqc, and a relative path moves with its ``Cd``
    (a Coq-Elpi program planted a report saying "Closed under the global context" and a harmless
    ``.vo`` where the verifier read them, then moved coqc's own output away with ``Cd``). Written
    last, coqc's own files replace whatever was planted at those paths before."""
    report = tmp / f"dojo_assumptions_{nonce}"
    # the project's bindings first: a later -Q wins, so the checked file is ours, not the project's
    cmd = (["coqc", "-q", *context.load_path, *context.options, "-Q", str(tmp), dirpath]
           + (["-noinit"] if context.noinit else []) + ["-o", str(tmp / f"{base}.vo"), str(tmp / f"{base}.v")])

    def run(probe: bool) -> subprocess.CompletedProcess:
        (tmp / f"{base}.v").write_text(verification_source(context, script, f"dojo_{nonce}", str(report),
                                                           sentence_timeout, tmp, probe))
        return _run(cmd, tmp, deadline, "coqc")

    probe = statement_probed(context)
    done = run(probe)
    if done.returncode != 0 and probe and not _pinned(context):
        probe = False
        done = run(probe)
    if done.returncode != 0:
        raise CheckFailed(f"coqc rejected the proof (exit {done.returncode}): {last_error(done.stderr + done.stdout)}")
    text = _written(report.with_name(f"{report.name}.out"))
    if text is None:  # a link to /dev/null made a report read as empty
        raise CheckFailed("coqc exited 0 but wrote no assumptions report")
    statement = _written(report.with_name(f"{report.name}_statement.out")) if probe else None
    if compares_section_variables(context):
        suffixes = ("statement", "keep") + (() if _admitted(context) else ("declared",))
        reports = [_written(report.with_name(f"{report.name}_{suffix}.out")) for suffix in suffixes]
        if any(r is None for r in reports):
            raise CheckFailed("coqc exited 0 but wrote no report of the section variables the lemma abstracts over")
        stated, keep, *declared = (r or "" for r in reports)
        problem = section_variables_problem(text, stated, keep, declared[0] if declared else None)
        if problem is not None:
            raise problem
    located = _parameters_to_locate(context)
    if not located:
        return _Compiled(text, tuple(context.module_parameters), statement)
    alone = [parameter for k, parameter in enumerate(located)
             if (_written(report.with_name(f"{report.name}_parameter_{k}.out")) or "").split() == ["Module", parameter]]
    return _Compiled(text, tuple(alone), statement)


def _written(path: Path) -> str | None:
    """The text coqc wrote at ``path``: None unless it is a regular file there (not a link)."""
    try:
        data = read_regular(path)
    except UnsafePath:
        return None
    return None if data is None else data.decode(errors="replace")


def _leaked(context: CoqContext, nonce: str, tmp: Path, dirpath: str, deadline: float) -> list[str]:
    """The objects of the compiled module, in a reopened context, that the compiled proof depends
    on and that the theorem's own context lacks (:mod:`prover.coq.dependencies`; none for any
    other context). The graphs were written by the compiled file; the candidates they share are
    located by their full names in a second small file that loads the checked library."""
    compiled = compiled_module(context)
    if compiled is None:
        return []
    found = candidates(tmp, f"dojo_{nonce}")
    if not found:
        return []
    source, reports = locate_source(context.module, (node.basename for node in found), tmp)
    (tmp / "DojoLocate.v").write_text(source)
    # with the Prelude even for a -noinit file: loading the checked library then loads the ltac
    # plugin before CoqHammer's, which needs it; the names located are full paths either way
    done = _run(["coqc", "-q", *context.load_path, *context.options, "-Q", str(tmp), dirpath, "DojoLocate.v"],
                tmp, deadline, "coqc (locating the dependencies)")
    if done.returncode != 0:
        raise DependencyError(f"coqc could not locate them: {last_error(done.stderr + done.stdout)}")
    texts = {name: text for name, report in reports.items() if (text := _written(report)) is not None}
    return untwinned(found, texts, compiled, context.module)


def _coqchk(context: CoqContext, vo: Path, dirpath: str, name: str, deadline: float) -> tuple[list[str], list[str]]:
    """Re-check the compiled library with coqchk (the project's load path, then ours); the axioms
    of its context summary, and the libraries it loaded. Every library it loaded must come from where its name says
    (:func:`prover.coq.provenance.check_loaded`), and the library it checked must hold the proof,
    ``name`` (a ``.vo`` put in coqc's place is refused even when the kernel accepts it)."""
    module = context.module
    done = _run(["coqchk", "-o", "-norec", module, *checker_load_path(context.load_path), "-Q", str(vo.parent), dirpath],
                vo.parent, deadline, "coqchk")
    text = done.stdout + done.stderr
    if done.returncode != 0 or CHECKED not in text:
        raise CheckFailed(f"coqchk rejected the compiled proof (exit {done.returncode}): {last_error(text)}")
    try:
        project = check_loaded(*parse_loaded(text), (vo, module),
                               [(d, logical) for flag, d, logical in bindings(context.load_path) if flag != "-I"])
    except ForeignLibrary as exc:
        raise CheckFailed(str(exc)) from None
    if not re.search(rf"^\s*checking cst:{re.escape(module)}\.(\S+\.)?{name}$", text, re.MULTILINE):
        raise CheckFailed(f"coqchk checked a compiled {module} that does not hold the proof")
    axioms, unsafe = parse_summary(text)
    if unsafe:
        raise CheckFailed("the proof relies on unsafe features: " + "; ".join(unsafe))
    _recheck(context, project, deadline)
    return axioms, parse_loaded(text)[1]


def _recheck(context: CoqContext, libraries: dict[str, Path], deadline: float) -> None:
    """Re-check with coqchk the project's libraries that the proof's check loaded (``libraries``)
    and that no kernel is on record as having checked, then record them
    (:func:`prover.coq.checked_vo.check`); :class:`CheckFailed` if coqchk rejects one."""
    todo = unchecked(libraries)
    if not todo:
        return
    if deadline <= time.monotonic():
        raise CheckFailed("coqchk of the project's compiled libraries not started: the verification timeout ran out")
    failed = check(todo, checker_load_path(context.load_path), deadline - time.monotonic())
    if failed is not None:
        raise CheckFailed(failed)


def _run(cmd: list[str], cwd: Path, deadline: float, what: str) -> subprocess.CompletedProcess:
    """Run ``cmd`` in the check's own fresh directory ``cwd``, which is also its sandbox (``HOME``,
    ``TMPDIR``: :func:`prover.coq.sandbox.sandbox_env`) and the only place it may write
    (:func:`prover.coq.sandbox.confined`)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise CheckFailed(f"{what} not started: the verification timeout ran out")
    try:
        return subprocess.run(confined(cmd, cwd), cwd=cwd, env=sandbox_env(cwd), capture_output=True, text=True, timeout=left,
                              check=False)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"{what} timed out (verification timeout)") from None
