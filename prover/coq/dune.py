"""The load path of a dune-built Coq project, read from its ``dune`` files without running dune.

A ``(coq.theory (name Foo.Bar) (theories Baz ...) (flags ...))`` stanza in ``DIR/dune`` makes the
``.v`` files of ``DIR`` (and of its subdirectories, under ``(include_subdirs qualified)``) the
theory ``Foo.Bar``. dune compiles them with ``-R DIR Foo.Bar`` and ``-Q`` for each theory they
depend on: another theory of the project, or one installed under ``user-contrib`` (the stdlib,
``Coq``, is bound by Coq itself). A project is one load path for all its files
(:class:`prover.coq.project.CoqProject`), so it binds every theory of the project with ``-R`` and
every installed theory any of them depends on with ``-Q``; a file that compiles under dune
compiles with these flags too, unless two theories have files of the same short name that a
file requires by that short name.

The ``dune-project`` file must enable Coq (``(using coq X)``), as dune requires. A file that cannot
be read, a misspelt Coq stanza, a stanza without a name, or a theory that depends on one neither
in the project nor installed is a :class:`~search_tree.errors.UserError` naming the file and the
stanza.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from search_tree.errors import UserError

from .install import not_installed, user_contrib
from .syntax import IDENT

DUNE_PROJECT = "dune-project"
#: the stanzas of dune's Coq mode: a misspelt one is refused, as dune refuses it, rather than
#: skipped like the project's other (OCaml) stanzas
COQ_STANZAS = ("coq.theory", "coq.extraction", "coq.pp")
STDLIB_THEORY = "Coq"

Sexp = str | list  # an atom (quoted strings unquoted) or a list of sexps


class DuneError(UserError, ValueError):
    """A dune project whose Coq theories cannot be read."""


@dataclass(frozen=True)
class Theory:
    """One ``coq.theory`` stanza: its logical name, its directory relative to the project root,
    whether its subdirectories belong to it, the theories it depends on and its extra coqc flags."""

    name: str
    path: str
    subdirs: bool
    theories: tuple[str, ...]
    flags: tuple[str, ...]
    where: str  # "DIR/dune, stanza at line N", for errors


_TOKEN = re.compile(r'\s+|;[^\n]*|#\|.*?\|#|#;|\(|\)|"(?:[^"\\]|\\.)*"|[^\s()";]+', re.S)


def read_sexps(text: str, where: str) -> list[tuple[int, Sexp]]:
    """The top-level s-expressions of a dune file, each with the line it starts on; a text that is
    not balanced s-expressions is a :class:`DuneError` naming ``where`` and the stanza's line."""
    stack: list[list] = []
    out: list[tuple[int, Sexp]] = []
    start_line = 0
    skips: list[int] = []  # ``#;`` comments out the next datum at its depth
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        line = text.count("\n", 0, pos) + 1
        if m is None:
            raise DuneError(f"{where}: cannot read the stanza starting at line {start_line or line}: "
                            f"unterminated string or comment at line {line}")
        tok, pos = m.group(), m.end()
        if tok[0].isspace() or tok[0] == ";" or tok.startswith("#|"):
            continue
        if tok == "#;":
            skips.append(len(stack))
            continue
        if tok == "(":
            if not stack:
                start_line = line
            stack.append([])
            continue
        if tok == ")":
            if not stack:
                raise DuneError(f"{where}: cannot read line {line}: ')' closes no stanza")
            done: Sexp = stack.pop()
        else:
            done = _unquote(tok) if tok.startswith('"') else tok
        if skips and skips[-1] == len(stack):
            skips.pop()
        elif stack:
            stack[-1].append(done)
        else:
            out.append((start_line if isinstance(done, list) else line, done))
    if stack:
        raise DuneError(f"{where}: cannot read the stanza starting at line {start_line}: a '(' is never closed")
    return out


def _unquote(tok: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), tok[1:-1])


def is_dune_project(root: Path) -> bool:
    """Whether ``root`` holds a ``dune-project`` that enables Coq (``(using coq X)``)."""
    path = root / DUNE_PROJECT
    if not path.is_file():
        return False
    return any(isinstance(s, list) and s[:2] == ["using", "coq"]
               for _, s in read_sexps(path.read_text(), str(path)))


def _fields(stanza: list, where: str) -> dict[str, list]:
    fields: dict[str, list] = {}
    for field in stanza[1:]:
        if not isinstance(field, list) or not field or not isinstance(field[0], str):
            raise DuneError(f"{where}: expected (field value ...), got {_show(field)}")
        fields[field[0]] = field[1:]
    return fields


def _atoms(values: list, field: str, where: str) -> tuple[str, ...]:
    if not all(isinstance(v, str) for v in values):
        raise DuneError(f"{where}: ({field} ...) must list names, got {_show(values)}")
    return tuple(values)


def _show(x: Sexp) -> str:
    return x if isinstance(x, str) else "(" + " ".join(map(_show, x)) + ")"


_NAME = re.compile(IDENT)


def read_theories(root: Path) -> list[Theory]:
    """Every ``coq.theory`` of the project at ``root``, from the ``dune`` files under it (dune's
    build directory ``_build`` and hidden directories left out), sorted by directory."""
    theories: list[Theory] = []
    for dune in sorted(root.rglob("dune")):
        rel = dune.parent.relative_to(root)
        if not dune.is_file() or any(part.startswith((".", "_")) for part in rel.parts):
            continue
        stanzas = read_sexps(dune.read_text(), str(dune))
        subdirs = any(isinstance(s, list) and s[:2] == ["include_subdirs", "qualified"] for _, s in stanzas)
        for line, stanza in stanzas:
            head = stanza[0] if isinstance(stanza, list) and stanza and isinstance(stanza[0], str) else None
            if head is not None and head.startswith("coq.") and head not in COQ_STANZAS:
                raise DuneError(f"{dune}, ({head} ...) at line {line}: unknown stanza (dune's Coq stanzas are "
                                f"{', '.join(COQ_STANZAS)}), so the theory it may declare would be missing")
            if head != "coq.theory" or not isinstance(stanza, list):
                continue
            where = f"{dune}, (coq.theory ...) at line {line}"
            fields = _fields(stanza, where)
            name = fields.get("name", [])
            if len(name) != 1 or not isinstance(name[0], str) or not _NAME.fullmatch(name[0]):
                raise DuneError(f"{where}: needs (name Logical.Name), got {_show(['name', *name])}")
            flags = tuple(f for f in _atoms(fields.get("flags", []), "flags", where) if f != ":standard")
            theories.append(Theory(name[0], rel.as_posix(), subdirs, _atoms(fields.get("theories", []), "theories",
                                                                              where), flags, where))
    if not theories:
        raise DuneError(f"dune project {root}: no (coq.theory ...) stanza in its dune files")
    return theories


def installed_theory(name: str) -> Path | None:
    """The directory of the installed theory ``name`` (``mathcomp.ssreflect`` ->
    ``user-contrib/mathcomp/ssreflect``), or None."""
    where = user_contrib().joinpath(*name.split("."))
    return where if where.is_dir() else None


def dune_load_paths(root: Path) -> tuple[list[tuple[str, str, str]], list[str], list[str]]:
    """(bindings ``(flag, dir, name)``, extra coqc flags, ``.v`` files) of the dune project at
    ``root`` (module docstring): in-project directories relative to ``root``, installed ones absolute."""
    theories = read_theories(root)
    own = {t.name: t for t in theories}
    bindings: list[tuple[str, str, str]] = [("-R", t.path or ".", t.name) for t in theories]
    options: list[str] = []
    seen_flags: list[tuple[str, ...]] = []
    for t in theories:
        for dep in t.theories:
            if dep in own or dep == STDLIB_THEORY:
                continue
            where = installed_theory(dep)
            if where is None:
                raise DuneError(f"{t.where}: theory {t.name} depends on {dep}, which is neither a theory of the project "
                                f"nor installed ({not_installed(dep)})")
            if ("-Q", str(where), dep) not in bindings:
                bindings.append(("-Q", str(where), dep))
        if t.flags and t.flags not in seen_flags:  # theories of a project mostly share their flags: give them once
            seen_flags.append(t.flags)
            options.extend(t.flags)
    files = sorted({p.relative_to(root).as_posix() for t in theories
                    for p in ((root / t.path).rglob("*.v") if t.subdirs else (root / t.path).glob("*.v"))
                    if not any(part.startswith((".", "_")) for part in p.relative_to(root).parts)})
    return bindings, options, files

