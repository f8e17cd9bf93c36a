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

The fields of a ``coq.theory`` (dune's Coq documentation; the ``(using coq X.Y)`` version that
brought each in brackets), each either read, or accepted because it does not change how a file
is compiled, or refused in one line because it does and is not read (a file is opened with the
flags it was compiled with, or not at all):

* read: ``name``; ``theories``; ``flags`` (dune's ordered set language; ``:standard`` is dune's
  default ``-q``, which only skips a ``coqrc``, so it adds nothing here); ``stdlib`` (0.6:
  ``(stdlib no)`` compiles the theory's files with ``-noinit``, and they are opened so, file by
  file, :meth:`prover.coq.project.CoqProject.noinit`; so is a theory whose ``flags`` hold
  ``-noinit``); ``modules`` (the files of the directory that belong to the theory, in the
  ordered set language: names, ``:standard``, nested lists and ``\\`` exclusion; a project's
  index holds only its theories' files); ``plugins`` (0.5; ``libraries`` before it): OCaml
  findlib libraries, whose directories (with those of the libraries they need) dune passes with
  ``-I``, as ``ocamlfind query -r`` gives them; one that is not installed (a plugin this project
  builds needs dune itself) is refused, named;
* accepted, changing nothing a file means: ``package`` and ``public_name`` (install rules),
  ``synopsis``, ``mode`` (0.3; native code or ``.vos`` only, 0.8), ``coqdoc_flags`` (0.8),
  ``coqdoc_header`` and ``coqdoc_footer`` (0.11), ``coqdep_flags`` (0.10: dependency analysis),
  ``generate_project_file`` (writes a ``_CoqProject``);
* refused: ``boot`` (the theory is Coq's own stdlib: open it as ``coq-stdlib``),
  ``modules_flags`` (0.9: flags per file), ``enabled_if`` (whether the theory exists at all
  depends on the build's variables), any field dune does not know, and an ``env`` stanza that
  sets ``(coq ...)``, which changes what ``:standard`` is.

The deprecated ``coqlib`` stanza is read as ``coq.theory``. The ``dune-project`` file must enable
Coq (``(using coq X)``), as dune requires. A file that cannot be read, a misspelt Coq stanza, a
stanza without a name, a theory that depends on one neither in the project nor installed, or a
refused field or value is a :class:`~search_tree.errors.UserError` naming the file, the stanza
and the field.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from search_tree.errors import UserError
from search_tree.safe_files import read_text

from .install import not_installed, user_contrib
from .syntax import IDENT

DUNE_PROJECT = "dune-project"
#: the stanzas of dune's Coq mode: a misspelt one is refused, as dune refuses it, rather than
#: skipped like the project's other (OCaml) stanzas
COQ_STANZAS = ("coq.theory", "coq.extraction", "coq.pp")
THEORY_STANZAS = ("coq.theory", "coqlib")  # coqlib: the deprecated name of coq.theory
STDLIB_THEORY = "Coq"
#: ``coq.theory`` fields read here (module docstring)
READ_FIELDS = ("name", "theories", "flags", "stdlib", "modules", "plugins", "libraries")
#: fields that change nothing a file means, accepted and not read
IGNORED_FIELDS = ("package", "public_name", "synopsis", "mode", "coqdoc_flags", "coqdoc_header", "coqdoc_footer",
                  "coqdep_flags", "generate_project_file")
#: fields that change how a theory's files are compiled and are not read, each with why
REFUSED_FIELDS = {
    "boot": "the theory is Coq's own standard library; open it as coq-stdlib",
    "modules_flags": "its files are compiled with flags of their own, and a project opens all its files with one set",
    "enabled_if": "whether the theory is built depends on the build's variables, which are not evaluated here",
}

Sexp = str | list  # an atom (quoted strings unquoted) or a list of sexps


class DuneError(UserError, ValueError):
    """A dune project whose Coq theories cannot be read."""


@dataclass(frozen=True)
class Theory:
    """One ``coq.theory`` stanza: its logical name, its directory relative to the project root,
    whether its subdirectories belong to it, the theories it depends on, its extra coqc flags,
    whether it is compiled without the Prelude, its OCaml plugins and its ``.v`` files (relative
    to the project root)."""

    name: str
    path: str
    subdirs: bool
    theories: tuple[str, ...]
    flags: tuple[str, ...]
    where: str  # "DIR/dune, stanza at line N", for errors
    noinit: bool = False
    plugins: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class DuneLoad:
    """What a dune project gives its :class:`~prover.coq.project.CoqProject`: the bindings
    ``(flag, dir, name)`` (in-project directories relative to the root, installed ones and plugin
    directories absolute), the extra coqc flags, the theories' ``.v`` files and those of them
    compiled with ``-noinit``."""

    bindings: tuple[tuple[str, str, str], ...]
    options: tuple[str, ...]
    files: tuple[str, ...]
    noinit_files: frozenset[str]


#: how deep a dune file's parentheses may nest (real ones nest a handful of levels); a deeper file
#: is refused, since reading it (:func:`ordered_set`) recurses once per level
MAX_DEPTH = 64

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
            if len(stack) == MAX_DEPTH:
                raise DuneError(f"{where}: cannot read the stanza starting at line {start_line}: nested deeper than "
                                f"{MAX_DEPTH} parentheses at line {line}")
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
    """Whether ``root`` holds a ``dune-project`` that enables Coq (``(using coq X)``). One that is a
    link or not a regular file is a :class:`DuneError`, not read through (:func:`read_text`)."""
    path = root / DUNE_PROJECT
    if not os.path.lexists(path):
        return False
    return any(isinstance(s, list) and s[:2] == ["using", "coq"]
               for _, s in read_sexps(read_text(path, DuneError), str(path)))


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


def ordered_set(values: list, standard: list[str], field: str, where: str) -> list[str]:
    """The elements dune's ordered set language gives ``values`` (the body of ``(field ...)``):
    atoms in order, ``:standard`` as ``standard``, a nested list as its own elements, and
    ``A ... \\ B ...`` as the elements of ``A ...`` that are not among those of ``B ...`` (the
    right side read the same way, so ``a \\ b \\ c`` is ``a`` less ``b \\ c``, as dune reads it).
    ``(:include FILE)``, another ``:name`` and ``%{variables}`` are a :class:`DuneError` naming
    ``where`` and ``field``: they depend on files or on the build, which are not read here."""

    def many(items: list) -> list[str]:
        groups: list[list[str]] = [[]]
        for item in items:
            if item == "\\":
                groups.append([])
            else:
                groups[-1].extend(one(item))
        kept = groups.pop()
        while groups:  # from the right: each group less what the groups right of it leave
            removed = set(kept)
            kept = [x for x in groups.pop() if x not in removed]
        return kept

    def one(item: Sexp) -> list[str]:
        if isinstance(item, list):
            return many(item)
        if item == ":standard":
            return list(standard)
        if item.startswith(":") or "%{" in item:
            raise DuneError(f"{where}: ({field} ...) uses {item}, which depends on what dune alone evaluates; "
                            "list the values instead")
        return [item]

    return many(values)


def _show(x: Sexp) -> str:
    return x if isinstance(x, str) else "(" + " ".join(map(_show, x)) + ")"


_NAME = re.compile(IDENT)


def read_theories(root: Path) -> list[Theory]:
    """Every ``coq.theory`` of the project at ``root``, from the ``dune`` files under it (dune's
    build directory ``_build`` and hidden directories left out), sorted by directory."""
    theories: list[Theory] = []
    for dune in sorted(root.rglob("dune")):
        rel = dune.parent.relative_to(root)
        if (dune.is_dir() and not dune.is_symlink()) or any(part.startswith((".", "_")) for part in rel.parts):
            continue  # a directory named dune; a link or a FIFO is refused by read_text
        stanzas = read_sexps(read_text(dune, DuneError), str(dune))
        subdirs = any(isinstance(s, list) and s[:2] == ["include_subdirs", "qualified"] for _, s in stanzas)
        for line, stanza in stanzas:
            head = stanza[0] if isinstance(stanza, list) and stanza and isinstance(stanza[0], str) else None
            if head is not None and head.startswith("coq.") and head not in COQ_STANZAS:
                raise DuneError(f"{dune}, ({head} ...) at line {line}: unknown stanza (dune's Coq stanzas are "
                                f"{', '.join(COQ_STANZAS)}), so the theory it may declare would be missing")
            if head == "env" and isinstance(stanza, list) and any(
                    isinstance(setting, list) and setting[:1] == ["coq"]
                    for profile in stanza[1:] if isinstance(profile, list) for setting in profile[1:]):
                raise DuneError(f"{dune}, (env ...) at line {line}: sets (coq ...) for a build profile, which changes "
                                "the :standard flags of the theories under it; not read here")
            if head in THEORY_STANZAS and isinstance(stanza, list):
                theories.append(_theory(root, rel.as_posix(), subdirs, stanza, f"{dune}, ({head} ...) at line {line}"))
    if not theories:
        raise DuneError(f"dune project {root}: no (coq.theory ...) stanza in its dune files")
    return theories


def _theory(root: Path, path: str, subdirs: bool, stanza: list, where: str) -> Theory:
    """The theory one ``coq.theory`` stanza at ``path`` declares (module docstring: which
    fields are read, which are accepted unread, which are refused)."""
    fields = _fields(stanza, where)
    for field in fields:
        if field in REFUSED_FIELDS:
            raise DuneError(f"{where}: field ({field} ...) is not read here: {REFUSED_FIELDS[field]}")
        if field not in READ_FIELDS and field not in IGNORED_FIELDS:
            raise DuneError(f"{where}: unknown field ({field} ...) (dune's coq.theory fields are "
                            f"{', '.join(READ_FIELDS + IGNORED_FIELDS + tuple(REFUSED_FIELDS))})")
    name = fields.get("name", [])
    if len(name) != 1 or not isinstance(name[0], str) or not _NAME.fullmatch(name[0]):
        raise DuneError(f"{where}: needs (name Logical.Name), got {_show(['name', *name])}")
    stdlib = fields.get("stdlib", ["yes"])
    if stdlib not in (["yes"], ["no"]):
        raise DuneError(f"{where}: (stdlib ...) must be yes or no, got {_show(['stdlib', *stdlib])}")
    flags = ordered_set(fields.get("flags", []), [], "flags", where)
    noinit = stdlib == ["no"] or "-noinit" in flags
    found = sorted((root / path).rglob("*.v") if subdirs else (root / path).glob("*.v"))
    modules = {".".join(p.relative_to(root / path).with_suffix("").parts): p.relative_to(root).as_posix()
               for p in found if not any(part.startswith((".", "_")) for part in p.relative_to(root).parts)}
    chosen = ordered_set(fields["modules"], list(modules), "modules", where) if "modules" in fields else list(modules)
    missing = [m for m in chosen if m not in modules]
    if missing:
        raise DuneError(f"{where}: (modules ...) names {missing[0]}, which has no file "
                        f"{(Path(path) / missing[0].replace('.', '/')).as_posix()}.v")
    return Theory(name[0], path, subdirs, _atoms(fields.get("theories", []), "theories", where),
                  tuple(f for f in flags if f != "-noinit"), where, noinit,
                  _atoms(fields.get("plugins", []) + fields.get("libraries", []), "plugins", where),
                  tuple(dict.fromkeys(modules[m] for m in chosen)))


def installed_theory(name: str) -> Path | None:
    """The directory of the installed theory ``name`` (``mathcomp.ssreflect`` ->
    ``user-contrib/mathcomp/ssreflect``), or None."""
    where = user_contrib().joinpath(*name.split("."))
    return where if where.is_dir() else None


def plugin_directories(plugin: str, where: str) -> list[str]:
    """The directories of the installed OCaml findlib library ``plugin`` and of every library it
    needs, which dune passes to coqc with ``-I`` (``ocamlfind query -r``); one that is not
    installed is a :class:`DuneError` naming it and ``where``."""
    try:
        found = subprocess.run(["ocamlfind", "query", "-r", plugin], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise DuneError(f"{where}: plugin {plugin} cannot be looked up: ocamlfind is not installed") from None
    if found.returncode != 0:
        raise DuneError(f"{where}: plugin {plugin} is not an installed OCaml library (ocamlfind query: "
                        f"{found.stderr.strip().splitlines()[-1] if found.stderr.strip() else 'not found'}); "
                        "a plugin the project builds itself needs dune, which is not run here")
    return [d for d in found.stdout.split("\n") if d]


def logical_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """The flags among ``flags`` that change what Coq accepts (``-impredicative-set``,
    ``-type-in-type``, ``-set OPTION``...): all but warning settings (``-w W``) and ``-q``."""
    kept: list[str] = []
    skip = False
    for i, flag in enumerate(flags):
        if skip:
            skip = False
        elif flag == "-w" and i + 1 < len(flags):
            skip = True
        elif flag != "-q":
            kept.append(flag)
    return tuple(kept)


def _check_same_logic(theories: list[Theory]) -> None:
    """The project's files are opened with one set of options, the union of its theories'
    flags; that is sound only while no theory's flags change the logic for another's files (an
    ``-impredicative-set`` given to one theory would let a search prove, in another, what its own
    compilation rejects). So theories whose logical flags differ are a :class:`DuneError`."""
    first = theories[0]
    for t in theories[1:]:
        if logical_flags(t.flags) != logical_flags(first.flags):
            raise DuneError(f"{t.where}: theory {t.name} is compiled with the flags "
                            f"{' '.join(logical_flags(t.flags)) or '(none)'} but {first.name} ({first.where}) with "
                            f"{' '.join(logical_flags(first.flags)) or '(none)'}; a project is opened with one set of "
                            "flags, so theories whose flags change the logic cannot share it")


def dune_load_paths(root: Path) -> DuneLoad:
    """The load path, options and files of the dune project at ``root`` (module docstring)."""
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
        for plugin in t.plugins:
            for directory in plugin_directories(plugin, t.where):
                if ("-I", directory, "") not in bindings:
                    bindings.append(("-I", directory, ""))
        if t.flags and t.flags not in seen_flags:  # theories of a project mostly share their flags: give them once
            seen_flags.append(t.flags)
            options.extend(t.flags)
    _check_same_logic(theories)
    files = tuple(sorted({f for t in theories for f in t.files}))
    if not files:
        raise DuneError(f"dune project {root}: its theories hold no .v file")
    return DuneLoad(tuple(bindings), tuple(options), files,
                    frozenset(f for t in theories if t.noinit for f in t.files))
