"""What coqchk and ``Print Assumptions`` report about a checked proof, read and resolved to kernel names.

Two reports, each with its blind spot:

* coqchk's CONTEXT SUMMARY names every axiom of every library it loaded by its fully qualified
  kernel name (``Coq.Logic.Classical_Prop.classic``): exact, but over-approximated (a library's
  unused axioms are listed too) and blind to axioms inside a functor still open at the theorem;
* ``Print Assumptions`` names what the theorem really uses, but by the shortest name that resolves
  in the current scope (``classic``, ``A.helper``), so two axioms may print alike, and a functor's
  parameter fields (``X.lt``) appear among them.

:func:`resolve` turns each printed name into the one summary axiom it can be, matching by label
(the last component, which a constant keeps through aliases, functor applications and
``Include``) and then by suffix. It fails closed: a name no summary axiom carries (unless it is a
field of a functor parameter), a name several carry, or one whose label is shared with an axiom
that is not trusted while the match is, is *unresolved*, and the proof is not proved. The last
rule is what makes resolution safe against aliasing: whichever constant the printed name meant,
its label is the printed label, so if every axiom with that label is trusted, so is it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .trusted_axioms import is_trusted, label

CLOSED = "Closed under the global context"
PREDICATIVE = "Set is predicative"
_INTERN = re.compile(r"^\[intern (.+) \.\.\.$", re.M)


@dataclass(frozen=True)
class Resolution:
    """Each printed assumption as a kernel name (a functor parameter's field as printed), and
    the printed names that could not be resolved, each with the reason."""

    names: tuple[str, ...]
    parameters: tuple[str, ...]
    unresolved: tuple[str, ...]


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
    coqchk decides about those). A heading is a line of its own (``Axioms:``); an entry is
    ``name : type``, one line (the report is printed without notations, so that no type reads as
    a heading, and at a width that never wraps: :func:`prover.coq.verify.verification_source`)."""
    return _entries(report, "Axioms")


def section_variables(report: str) -> set[str]:
    """The section variables a ``Print Assumptions`` report lists (those the constant's body or
    type uses, printed inside the section): what it abstracts over once the section closes."""
    return set(_entries(report, "Section Variables"))


def _entries(report: str, heading: str) -> list[str]:
    """The names listed under ``heading`` in a ``Print Assumptions`` report."""
    names: list[str] = []
    section = None
    for line in report.splitlines():
        if not line.strip() or line.strip() == CLOSED:
            continue
        if line.endswith(":") and not line.startswith(" ") and " : " not in line:
            section = line[:-1]
        elif section == heading and not line.startswith((" ", ":")):  # section variables: ": type" on a line of its own
            names.append(line.split(" : ", 1)[0].strip())
    return names


#: what coqchk prints when it accepted every library it was asked to check
CHECKED = "Modules were successfully checked"


def last_error(text: str) -> str:
    """The last ``Error`` block of coqc's or coqchk's output (else its end), on one line, at most 600 characters."""
    at = text.rfind("Error")
    return " ".join((text[at:] if at >= 0 else text[-600:]).split())[:600]


def parse_loaded(text: str) -> tuple[list[Path], list[str]]:
    """(the ``.vo`` files coqchk interned, the libraries of its "Ordered list") of its output."""
    paths = [Path(p) for p in _INTERN.findall(text)]
    at = text.find("Ordered list:")
    libraries: list[str] = []
    if at >= 0:
        for line in text[at:].splitlines()[1:]:
            if not line.startswith("  ") or not line.strip():
                break
            libraries.append(line.strip())
    return paths, libraries


def resolve(printed: Iterable[str], summary: Iterable[str], parameters: Iterable[str] = (),
            trusted_scope: bool = False, trusted: Callable[[str], bool] = is_trusted,
            libraries: Iterable[str] = (), exact_only: bool = False) -> Resolution:
    """Resolve the names ``Print Assumptions`` printed against coqchk's ``summary`` (see the
    module docstring); ``parameters`` are the functor arguments and declared modules of the
    modules open at the theorem, whose fields (``X.lt``) are parameters, not axioms.

    ``trusted_scope``: the modules open at the theorem are trusted text (a stdlib theorem inside a
    functor or module type), so a name no summary axiom carries is one of their parameters or
    fields, however it is printed (``Import M.`` prints ``M.t`` as ``t``). Elsewhere only
    ``X.field`` of a listed parameter ``X`` is, and any other unlisted name is refused: it may be
    an axiom of a functor still open at the theorem, which coqchk never sees as such.

    ``libraries``: the logical names of the libraries coqchk loaded. A name under one of them is
    never a parameter's field, whatever its head: a functor's parameter named ``P`` after a
    project's root made ``P.Helper.Impl.h0``, an admitted lemma a sealed module hides (``Print
    Assumptions`` prints it, coqchk's summary lists only the field that seals it), pass for a
    field of ``P``.

    ``exact_only``: a printed name matches only the summary axiom of that very name, never by
    suffix. For a statement inside an open functor or module type outside the stdlib's text:
    coqchk's summary never lists what their bodies declare, so the functor's own ``Axiom
    classic``, printed ``classic``, matched the stdlib's trusted one. An entry that is not
    ``name : type`` (``X.loop is assumed to be guarded.``, which coqchk cannot see in a module
    type's body either) is never resolved."""
    by_label: dict[str, list[str]] = defaultdict(list)
    for name in summary:
        by_label[label(name)].append(name)
    params = set(parameters)
    roots = tuple(f"{library}." for library in libraries)
    names: list[str] = []
    fields: list[str] = []
    unresolved: list[str] = []
    for name in printed:
        candidates = by_label.get(label(name), [])
        # a name under a loaded library is printed in full: a suffix of another (the project's
        # Logic.Eqdep.Eq_rect_eq.eq_rect_eq of the stdlib's) is another axiom
        exact = [c for c in candidates
                 if c == name or (c.endswith("." + name) and not name.startswith(roots) and not exact_only)]
        if any(ch.isspace() for ch in name):
            unresolved.append(f"{name} (not an axiom the kernel checked: an unsafe feature)")
            continue
        head = name.split(".", 1)[0]
        field = "." in name and head in params and not name.startswith(roots)
        if not exact and (field or (trusted_scope and not candidates)):
            fields.append(name)
        elif not candidates:
            unresolved.append(f"{name} (no axiom of coqchk's summary has that name)")
        elif len(exact) != 1:
            unresolved.append(f"{name} (it may name any of {', '.join(sorted(candidates))})")
        elif trusted(exact[0]) and not all(trusted(c) for c in candidates):
            others = sorted(c for c in candidates if not trusted(c))
            unresolved.append(f"{name} (it may name {exact[0]} or {', '.join(others)})")
        else:
            names.append(exact[0])
    return Resolution(tuple(names), tuple(fields), tuple(unresolved))
