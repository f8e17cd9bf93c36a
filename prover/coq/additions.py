"""Context additions: libraries a search loads before a theorem's statement, e.g. CoqHammer or Lia.

A tactic such as ``hauto`` or ``lia`` needs a library the theorem's own file may not load. An
addition is a few sentences (``From Hammer Require Import Tactics.``) placed right before the
statement, both in coqtop and in the text that :mod:`prover.coq.verify` compiles, so it is part
of the proof: verified with it by coqc and coqchk, and printed with it (:func:`annotate`).

Leak check. An addition ``Require``s compiled stdlib modules (CoqHammer's ``Tactics`` loads
~200 of them, ``Lists.List`` and ``ZArith`` among them). A stdlib theorem is opened inside its
own file under the file's module name; the compiled ``.vo`` of that module holds the theorem and
every later lemma of its file. What an addition loads is asked of Coq itself (``Print
Libraries`` after the addition's sentences, once per process), so it is exact whatever the
Require graph. An addition that loads the theorem's own module (:func:`leaks`) is still offered:
the theorem is then reopened under another module path (:mod:`prover.coq.reopened`, where the
compiled module can be loaded beside it), and a proof found there is accepted only when its
term depends on no compiled object that the theorem's own context lacks: the theorem itself or
a later object of its file (:mod:`prover.coq.dependencies`, checked by :mod:`prover.coq.verify`).
:func:`reopened` lists the theorems this concerns, so a benchmark can
print how many it gives back to CoqHammer.

Missing library: an addition whose sentences Coq refuses (CoqHammer not installed) is left out
with one warning naming the Debian package (:func:`available`); the environment records it.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace

from search_tree.protocol import Theorem

from .context import ADHOC_MODULE, CoqContext
from .install import stdlib_root, user_contrib
from .project import load_project_ref
from .records import CoqFields
from .sandbox import HAMMER_LIBEXEC, confined, sandbox_dir, sandbox_env
from .vo import VoFormatError, vo_dependencies

ANNOTATION = "(* context addition, before the statement: "


@dataclass(frozen=True)
class Addition:
    """A named context addition: its sentences and the Debian package that provides it."""

    name: str
    sentences: tuple[str, ...]
    package: str


ADDITIONS: dict[str, Addition] = {a.name: a for a in (
    # ``Hammer`` exports ``Tactics``; Z3 is off because Debian's z3 has no ``z3_tptp``, Vampire is not in Debian
    Addition("hammer", ("From Hammer Require Import Hammer.", "Unset Hammer Z3.", "Unset Hammer Vampire."),
             "libcoq-hammer"),
    Addition("hammer-tactics", ("From Hammer Require Import Tactics.",), "libcoq-hammer"),
    Addition("lia", ("Require Import Lia.",), "coq"),
    Addition("lra", ("Require Import Lra.",), "coq"),
    Addition("psatz", ("Require Import Psatz.",), "coq"),
    Addition("field", ("Require Import Field.",), "coq"),
    # ``ring`` on nat needs ArithRing's ring structure, which neither Psatz nor Field declares
    Addition("ring", ("Require Import ArithRing.",), "coq"),
)}


class AdditionError(ValueError):
    """An addition name that is not in :data:`ADDITIONS`."""


def addition(name: str) -> Addition:
    """The addition called ``name``; :class:`AdditionError` listing the known ones."""
    try:
        return ADDITIONS[name]
    except KeyError:
        raise AdditionError(f"unknown context addition {name!r} (known: {', '.join(ADDITIONS)})") from None


def names(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """Addition names from an option: a list, or one comma-separated string (``--env-opt
    additions=hammer,lia``); :class:`AdditionError` for an unknown name."""
    out = tuple(n.strip() for n in (value.split(",") if isinstance(value, str) else value or ()) if n.strip())
    for name in out:
        addition(name)
    return out


@dataclass(frozen=True)
class Probe:
    """What Coq answered to an addition's sentences: the modules they load, or why it refused."""

    loaded: frozenset[str]
    error: str = ""


@functools.lru_cache(maxsize=32)
def probe(sentences: tuple[str, ...]) -> Probe:
    """Run ``sentences`` then ``Print Libraries`` in coqc; the logical names of every library
    loaded then (the Prelude's included), or the error if coqc refuses the sentences."""
    with sandbox_dir("probe") as tmp:
        source = tmp / "Probe.v"
        source.write_text("\n".join(sentences) + "\nPrint Libraries.\n")
        try:
            done = subprocess.run(confined(["coqc", "-q", source.name], tmp, hammer=True), cwd=tmp, capture_output=True,
                                  text=True, timeout=300, check=False, env=sandbox_env(tmp, hammer_environ()))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Probe(frozenset(), f"coqc could not run the addition: {exc}")
    if done.returncode != 0:
        return Probe(frozenset(), " ".join((done.stderr or done.stdout).split())[:300])
    at = done.stdout.find("Loaded library files:")
    return Probe(frozenset(line.strip() for line in done.stdout[at:].splitlines()[1:] if line.startswith("  ")))


def hammer_environ() -> dict[str, str]:
    """This process's environment with :data:`HAMMER_LIBEXEC` on PATH (for coqc runs here)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([HAMMER_LIBEXEC] + [p for p in env.get("PATH", "").split(os.pathsep)
                                                       if p != HAMMER_LIBEXEC])
    return env


def put_hammer_on_path() -> None:
    """Add :data:`HAMMER_LIBEXEC` to this process's PATH, which the coqtops it starts inherit."""
    os.environ["PATH"] = hammer_environ()["PATH"]


_warned: set[str] = set()


def available(names: Iterable[str]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The additions among ``names`` that Coq accepts, and ``{name: why}`` for the others.

    Each missing addition is warned about once per process, naming its Debian package."""
    ok: list[str] = []
    missing: dict[str, str] = {}
    for name in names:
        add = addition(name)
        found = probe(add.sentences)
        if found.error:
            missing[name] = f"{add.sentences[0]!r} failed ({found.error}); install the Debian package {add.package}"
            if name not in _warned:
                _warned.add(name)
                warnings.warn(f"context addition {name!r} left out: {missing[name]}", RuntimeWarning, stacklevel=2)
        else:
            ok.append(name)
    return tuple(ok), missing


def leaks(name: str, module: str) -> bool:
    """Whether addition ``name`` loads the compiled copy of ``module`` (see the module docstring)."""
    return module != ADHOC_MODULE and module in probe(addition(name).sentences).loaded


def offered(names: Iterable[str], theorem: Theorem) -> tuple[str, ...]:
    """The additions among ``names`` that may be loaded for ``theorem``: installed (Coq accepts
    them), and none in a project compiled without the stdlib's Prelude (``-noinit``), whose own
    foundations the stdlib's would clash with. A generator asking whether its tactics exist for a
    theorem gets one answer for all reasons. One that loads the theorem's own module is offered
    too, in a reopened context (module docstring)."""
    fields = CoqFields.of(theorem)
    if load_project_ref(fields.project).noinit(theorem.file_path):
        return ()
    return tuple(n for n in names if not probe(addition(n).sentences).error)


def reopens(names: Iterable[str], module: str) -> bool:
    """Whether a theorem of ``module`` with the additions ``names`` is opened reopened
    (:mod:`prover.coq.reopened`): one of them loads the compiled ``module``."""
    return any(leaks(n, module) for n in names)


@functools.lru_cache(maxsize=256)
def hammer_filter(names: tuple[str, ...], module: str) -> tuple[str, ...]:
    """``Add Hammer Filter`` sentences for a theorem of ``module`` reopened with the additions
    ``names``: they withhold from ``hammer``'s premise selection the compiled ``module`` and every
    library the additions load that was compiled against it, i.e. exactly the libraries the
    theorem's own file could not have loaded. Without them ``hammer`` finds the theorem itself
    (``Nat.leb_le`` proved by ``srun eauto use: PeanoNat.Nat.leb_le``) or a later lemma built on
    it (``Compare_dec.leb_correct``), a proof the leak check then refuses after the call has
    spent its whole time. The reopened twins (``DojoReopened.<module>``) stay: CoqHammer filters
    by a name's prefix. The filter only narrows what ``hammer`` searches; the leak check on the
    final term stays what decides. A library whose ``.vo`` cannot be read is withheld too."""
    loaded = set().union(*(probe(addition(n).sentences).loaded for n in names))
    withheld = sorted(lib for lib in loaded if lib == module or _built_on(lib, module))
    return tuple(f"Add Hammer Filter {lib}." for lib in withheld)


def _built_on(library: str, module: str) -> bool:
    """Whether ``library`` (a loaded logical name) was compiled against ``module``, as its ``.vo``
    records (:func:`prover.coq.vo.vo_dependencies`); True for one whose ``.vo`` cannot be read."""
    head, _, rest = library.partition(".")
    path = stdlib_root() / rest.replace(".", "/") if head == "Coq" else user_contrib() / library.replace(".", "/")
    try:
        return module in vo_dependencies(path.with_name(path.name + ".vo"))
    except (OSError, VoFormatError):
        return True


def reopened(names: Iterable[str], theorems: Iterable[Theorem]) -> list[Theorem]:
    """The theorems that the additions ``names`` are offered to only in a reopened context, with
    the leak check on their proofs (what :func:`leaks` would otherwise keep from them)."""
    names = tuple(names)
    return [t for t in theorems if offered(names, t) == names
            and reopens(names, CoqFields.of(t).module or ADHOC_MODULE)]


# The tactics each addition brings, so that a proof is checked first with only the additions its own
# tactics need (verification decides: a proof that fails so is checked with all of them).
_RECONSTRUCTION = frozenset(
    "sauto hauto qauto srun sfirstorder scrush ssimpl sintuition strivial sdone sinit sinvert sdestruct "
    "sinduction leauto lauto bauto".split())
TACTICS: dict[str, frozenset[str]] = {
    "hammer": _RECONSTRUCTION,
    "hammer-tactics": _RECONSTRUCTION,
    "lia": frozenset({"lia", "nia"}),
    "lra": frozenset({"lra", "nra"}),
    "psatz": frozenset({"lia", "nia", "lra", "nra", "psatz"}),
    "field": frozenset({"field", "field_simplify", "field_simplify_eq"}),
    "ring": frozenset({"ring", "ring_simplify"}),
}
_WORD = re.compile(r"[A-Za-z_][\w']*")


def needed(names: Iterable[str], tactics: Iterable[str], theorem: Theorem) -> tuple[str, ...]:
    """The additions among ``names`` whose tactics occur in ``tactics``; ``hammer``, whose proofs
    are rewritten to reconstruction tactics, becomes the smaller ``hammer-tactics`` where it is
    offered for ``theorem``. A guess that verification checks, never trusts."""
    words = {w for t in tactics for w in _WORD.findall(t)}
    out: list[str] = []
    for name in names:
        if words & TACTICS.get(name, frozenset()):
            if name == "hammer" and offered(("hammer-tactics",), theorem):
                name = "hammer-tactics"
            if name not in out:
                out.append(name)
    return tuple(out)


def with_additions(context: CoqContext, sentences: tuple[str, ...]) -> CoqContext:
    """``context`` with ``sentences`` right before the statement: in coqtop's prefix, and in the
    text coqc checks, where :mod:`prover.coq.verify` writes them after pinning what the statement
    means without them (``source_prefix`` stays the file's own text)."""
    if not sentences:
        return context
    return replace(context, prefix=context.prefix + sentences, additions=context.additions + sentences)


def annotate(context: CoqContext, script: str) -> str:
    """``script`` preceded by one comment line per addition, so that the printed proof says what
    must stand before the statement for it to check (the comments are inert inside ``Proof.``)."""
    return "".join(f"{ANNOTATION}{s} *)\n" for s in context.additions) + script
