"""What a project's compiled modules declare, as Coq prints it: the check that an edit keeps every type.

``fill-admitted`` may change how a lemma is proved, never what it states. What a lemma states to
the rest of the world is its type *after* its sections are closed: inside ``Section S. Variable n
: nat. Hypothesis H : n = 0.``, ``Lemma l : n = 0.`` is ``forall n, n = 0 -> n = 0`` when admitted
(an admitted lemma keeps every section variable), but ``forall n, n = 0`` once proved by a script
that does not use ``H`` -- or the other way round under ``Proof using``. Comparing statements as
text cannot see this, so the check asks Coq.

:func:`signatures` compiles a throwaway file that ``Require``s the modules (nothing imported, so
every name prints the same way before and after an edit), sets ``Printing All`` (no notation,
coercion or implicit argument can hide a difference) and runs ``Print Module`` on each. Coq
prints every constant of a module with its type and its opacity (``Parameter`` for an opaque
constant, ``Definition`` for a transparent one), inductive types with their constructors, and
the names of nested modules, which are printed in turn, one level per coqc run. This covers
constants no index names (Program obligations, schemes, record projections) and, unlike
``coqchk``, compares types rather than checking them. The insides of functors and module types
cannot be printed this way; their signatures are part of the enclosing module's listing.

Types are not all an edit can change. A proof's context additions (``Require Import ArithRing.``)
go right before its lemma and stay in force for the rest of the file, where what they import can
shadow a name a later definition uses: after ``ArithRing``, ``Definition v := IDphi 5.`` takes
``Ring_theory.IDphi``, so ``v`` has the same type and another value, and a later lemma about ``v``
another meaning. So the value of every transparent constant (``Definition``, the only kind whose
value the rest of the world can compute with) is printed too, with ``Print``, and compared the
same way; opaque ones (``Parameter``: ``Qed`` proofs, admitted lemmas) may change value freely.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from .project import CoqProject
from .sandbox import confined, sandbox_dir, sandbox_env

TIMEOUT = 600.0  # seconds for one coqc run that loads and prints the modules
_ITEM = re.compile(r" (?=(?:Parameter|Definition|Inductive|CoInductive|Variant|Module) )")
_CHECK_FILE = "dojo_signatures"
#: how :func:`signatures` keys the printed value of a transparent constant (no module name has a space)
VALUE = "value of "


class SignatureError(RuntimeError):
    """Coq could not load or print a module (the message is coqc's, in one line)."""


def signatures(project: CoqProject, files: list[str]) -> dict[str, str]:
    """``{module: what Coq prints for it}`` for the modules of ``files`` (compiled, relative to the
    root) and every module nested in them, and ``{VALUE + constant: what Coq prints for it}`` for
    each of their transparent constants; raises :class:`SignatureError` if coqc fails."""
    out: dict[str, str] = {}
    todo = [project.module(f) for f in files]
    while todo:
        printed = _print(project, todo, [f"Print Module {m}." for m in todo])
        out.update(printed)
        todo = [f"{module}.{name}" for module, text in printed.items() for name in _nested(module, text)]
    constants = [f"{module}.{name}" for module, text in list(out.items())
                 for name, decl in _items(text).items() if decl.startswith("Definition ")]
    values = _print(project, constants, [f"Print {c}." for c in constants])
    out.update({f"{VALUE}{c}": text for c, text in values.items()})
    return out


def difference(before: dict[str, str], after: dict[str, str]) -> str | None:
    """None when ``after`` prints every module as ``before`` does, else one line naming the first
    declaration that differs (the type of a constant, or the value of a transparent one, before
    and after)."""
    for module, old in before.items():
        new = after.get(module)
        if new == old:
            continue
        if module.startswith(VALUE):
            return f"it changes the value of {module[len(VALUE):]} (before: {_short(old)}; after: {_short(new or '')})"
        if new is None:
            return f"it removes the module {module}"
        old_items, new_items = _items(old), _items(new)
        for name in list(old_items) + [n for n in new_items if n not in old_items]:
            a, b = old_items.get(name), new_items.get(name)
            if a == b:
                continue
            if a is None or b is None:
                return f"it {'adds' if a is None else 'removes'} {module}.{name}: {_short(a or b or '')}"
            kind_a, _, type_a = a.partition(" : ")
            kind_b, _, type_b = b.partition(" : ")
            if kind_a.split()[0] == kind_b.split()[0] and kind_a.split()[0] in ("Parameter", "Definition"):
                return f"it changes the type of {module}.{name} (before: {_short(type_a)}; after: {_short(type_b)})"
            return f"it changes {module}.{name} (before: {_short(a)}; after: {_short(b)})"
        return f"it changes what {module} declares"
    return None


def _print(project: CoqProject, names: list[str], commands: list[str]) -> dict[str, str]:
    """One coqc run in a sandbox that ``Require``\\ s the files declaring ``names`` (modules or
    constants), nothing imported, and runs ``commands``, each redirected to its own file:
    ``{name: its command's output}`` (whitespace made single spaces), in the order of ``names``."""
    if not names:
        return {}
    files = {project.module(f) for f in project.source_files()}
    owners = {max((t for t in files if m == t or m.startswith(t + ".")), key=len) for m in names}
    lines = [f"Require {m}." for m in sorted(owners)]
    lines += ["Set Printing All.", "Set Printing Width 1000000."]
    lines += [f'Redirect "printed{k}" {command}' for k, command in enumerate(commands)]
    with sandbox_dir("signatures") as box:
        (box / f"{_CHECK_FILE}.v").write_text("\n".join(lines) + "\n")
        try:
            cmd = confined(["coqc", "-q", *project.coq_args, f"{_CHECK_FILE}.v"], box)
            done = subprocess.run(cmd, cwd=box, env=sandbox_env(box), capture_output=True, text=True, timeout=TIMEOUT,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise SignatureError(f"printing the modules' types took more than {TIMEOUT:.0f} s") from None
        if done.returncode != 0:
            raise SignatureError("coqc could not print the modules' types: "
                                 + " ".join((done.stderr + done.stdout).split())[:500])
        return {m: " ".join(Path(box / f"printed{k}.out").read_text().split()) for k, m in enumerate(names)}


def _items(text: str) -> dict[str, str]:
    """``{name: declaration}`` of a printed ``Module M := Struct ... End`` (empty for anything else)."""
    head, sep, body = text.partition(" := Struct ")
    if not sep or not body.endswith("End"):
        return {}
    items: dict[str, str] = {}
    for item in _ITEM.split(" " + body[:-len("End")].strip()):
        words = item.strip().rstrip(".").split()
        if len(words) >= 2:
            name = words[2] if words[:2] == ["Module", "Type"] and len(words) > 2 else words[1]
            items[name] = " ".join(words)
    return items


def _nested(module: str, text: str) -> list[str]:
    """The modules (not module types, not functors' insides) declared in a printed module."""
    return [decl.split()[1] for decl in _items(text).values()
            if decl.startswith("Module ") and not decl.startswith("Module Type ")]


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
