"""The text scan of one ``.v`` file of a project: its requires, declarations, theorems and proof scripts.

The index is built by scanning sentences (:mod:`prover.coq.sentences`), not by Coq, so that
listing theorems takes a fraction of a second and needs no coqtop; the tracer
(:mod:`prover.coq.tracer`) then replays the files in Coq. Sentences are classified by
:mod:`prover.coq.vernacular`. A project's ``Require`` that names no file of the project is
resolved against the stdlib (:func:`stdlib_modules`), so that its file's ``imports`` list the
stdlib files it loads and its premises can come from them; one that names no stdlib file either
is looked up among the installed libraries (:func:`prover.coq.install.installed_modules`) and kept
in ``library_requires``, so that a project's learned tactics can come from the traces of the
libraries it builds on. An index scanned before such a library was installed keeps the name
unresolved until it is rescanned (``--rebuild-index``).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import re
from pathlib import Path

from .install import coq_version, installed_modules, stdlib_root, user_contrib
from .project import STDLIB_PREFIX, CoqProject, read_source, stdlib_project
from .records import Declaration, SourceFile, StdlibScanError, TheoremEntry
from .sentences import LineIndex, Sentence, mask_comments, split_sentences
from .vernacular import (
    DECLARATION, IDENT, REQUIRE, TACTIC_NAME, THEOREM_KEYWORDS, block_sentence, needs_proof, proof_end, top_level_tokens,
)


def source_hash(text: str) -> str:
    """The SHA-1 of a text: how the index notices a changed source file or scanner."""
    return hashlib.sha1(text.encode()).hexdigest()


def logical_modules(root: Path, project: CoqProject | None = None) -> dict[str, str]:
    """Logical module name -> file path (under ``root``) of every ``.v`` file of ``project`` (default:
    every ``.v`` under ``root``, named as in the stdlib): what ``Require`` resolves against."""
    if project is None:
        project = stdlib_project()
        paths = [p.relative_to(root).as_posix() for p in root.rglob("*.v")]
    else:
        paths = project.source_files()
    return {project.module(p): p for p in paths}


@functools.lru_cache(maxsize=1)
def stdlib_modules() -> dict[str, str]:
    """Logical module name -> path of every stdlib file as another project's files see it (under
    :data:`~prover.coq.project.STDLIB_PREFIX`): what their requires resolve against when no file of
    their own project matches."""
    return {m: STDLIB_PREFIX + p for m, p in logical_modules(stdlib_root()).items()}


def resolve_require(name: str, prefix: str | None, modules: dict[str, str]) -> str | None:
    """The logical module a ``Require`` names (``PeanoNat`` or ``From Coq Require Arith.PeanoNat``).

    Coq matches the given (possibly partial) name against a suffix of the logical paths under the
    ``From`` prefix; among several matches the shortest path wins, as its load path order does for
    the stdlib.
    """
    full = f"{prefix}.{name}" if prefix else name
    if full in modules:
        return full
    candidates = [m for m in modules if m.endswith("." + name) and (prefix is None or m.startswith(prefix + "."))]
    return min(candidates, key=lambda m: (m.count("."), m)) if candidates else None


def scan_file(root: Path, path: str, modules: dict[str, str], project: CoqProject | None = None) -> SourceFile:
    """Index one file of ``project`` (default: the stdlib's naming); raises :class:`StdlibScanError`
    naming the file and line on unexpected structure, and :class:`~prover.coq.project.ProjectError`
    naming it for a file that cannot be read as text (:func:`~prover.coq.project.read_source`).

    Lemmas ended by ``Admitted`` are kept apart in :attr:`SourceFile.admitted`: open targets, never
    benchmark theorems with a proof to learn from. A proof ends at its terminator as
    :func:`~prover.coq.vernacular.proof_end` reads it (``Time Qed.`` included); a lemma proved by
    ``Proof <term>.`` is, like one given with ``:=``, a declaration and no theorem entry (it has no
    script), and the scan goes on right after that sentence."""
    project = project or stdlib_project()
    # a project's requires resolve in the project first, then in the stdlib (the stdlib's own in itself)
    outside = {} if project.is_stdlib else stdlib_modules()
    text = read_source(root, path)
    sents = split_sentences(text, path)
    lines = LineIndex(text)
    sf = SourceFile(path, project.module(path), [], [], source_hash(text), [(s.start, s.end) for s in sents])

    def fail(s: Sentence, what: str) -> StdlibScanError:
        line, col = lines.position(s.start)
        return StdlibScanError(f"{path}:{line}:{col}: {what}: {s.code[:80]!r}")

    stack: list[tuple[str, str, bool]] = []  # ("section" | "module", name, a functor's or module type's body)
    i = 0
    while i < len(sents):
        s = sents[i]
        code = s.code
        i += 1
        missing = missing_load(code, project)
        if missing is not None:
            sf.missing_loads.append(f"{missing} ({path}:{lines.position(s.start)[0]})")
            if sf.stops_at is None:
                sf.stops_at = s.start
            continue
        m = REQUIRE.match(code)
        if m:
            for name in m.group("mods").split():
                target = (resolve_require(name, m.group("from"), modules)
                          or resolve_require(name, m.group("from"), outside))
                library = None if target or project.is_stdlib else resolve_require(
                    name, m.group("from"), installed_modules())
                if library is not None:
                    if library not in sf.library_requires:
                        sf.library_requires.append(library)
                elif target is None:
                    sf.unresolved_requires.append(f"{m.group('from')}.{name}" if m.group("from") else name)
                elif target not in sf.requires:
                    sf.requires.append(target)
            continue
        m = TACTIC_NAME.match(code)
        if m:
            sf.tactic_names.append(m.group("ltac") or m.group("notation") or m.group("db"))
            continue
        block = block_sentence(code)
        if block is not None:
            kind, name, header = block
            if kind in ("section", "module"):
                stack.append((kind, name, kind == "module" and _parametric(code, header)))
            elif kind == "end":
                if not stack or stack[-1][1] != name:
                    raise fail(s, f"End does not close the innermost block {stack[-1][1] if stack else '(none)'}")
                stack.pop()
            continue
        m = DECLARATION.match(code)
        if not m or m.group("name") == "_":  # no declaration, or an anonymous one (Instance _ : ...)
            continue
        prefix = ".".join(name for kind, name, _ in stack if kind == "module")
        parametric = any(p for _, _, p in stack)
        full_name = f"{prefix}.{m.group('name')}" if prefix else m.group("name")
        kw = m.group("kw")
        # offsets of the name inside the original text (code may differ from text by comments)
        name_off = s.start + s.text.find(m.group("name"), s.text.find(kw) + len(kw))
        decl = Declaration(
            full_name, kw.lower(), code, lines.position(s.start), lines.position(s.end),
            lines.position(name_off), lines.position(name_off + len(m.group("name"))), parametric,
        )
        # a declaration stated without a body (a goal to prove) is followed by its proof script
        # (none when a declaration comes first: an Instance whose fields were all inferred has no script)
        proof: list[Sentence] = []
        terminator = ""
        is_program = "Program" in code[: m.start("kw")]
        if needs_proof(code, kw) and not is_program:
            found = proof_end(sents[n].code for n in range(i, len(sents)))
            if found is not None:
                # the terminator right after the proof's sentences: the tracer, fill and context count on it
                j, terminator = i + found[0], found[1]
                proof = sents[i:j]
                i = j + 1
        sf.declarations.append(decl)
        if kw in _TYPE_KEYWORDS:
            masked = mask_comments(s.text)
            for name, kind, a, b in _type_members(masked, kw):
                at = s.start + a
                member_name = f"{prefix}.{name}" if prefix else name
                sf.declarations.append(Declaration(
                    member_name, kind, " ".join(masked[a:b].split()), lines.position(at),
                    lines.position(s.start + b), lines.position(at), lines.position(at + len(name)), parametric,
                ))
        if kw in THEOREM_KEYWORDS and terminator in ("Qed", "Defined", "Admitted"):
            end = sents[i - 1].end
            (sf.admitted if terminator == "Admitted" else sf.theorems).append(
                TheoremEntry(
                    full_name, kw.lower(), code, s.start, lines.position(s.start), lines.position(end),
                    tuple((p.start, p.end) for p in proof), terminator, any(k == "section" for k, _, _ in stack),
                )
            )
    if stack:
        raise StdlibScanError(f"{path}: unclosed {stack[-1][0]} {stack[-1][1]} at end of file")
    sf.imports = [modules[r] if r in modules else outside[r] for r in sf.requires]
    sf.imports[:0] = [p for p in project.implicit_imports(path) if p not in sf.imports]
    return sf


_MODULE_TYPE = re.compile(r"(?:#\[[^\]]*\]\s*)*(?:(?:Local|Global)\s+)?Module\s+Type\b")


def _parametric(code: str, header: str) -> bool:
    """Whether a module-opening sentence opens a module type or a functor (``Module F (X : T)``)."""
    return _MODULE_TYPE.match(code) is not None or header.lstrip().startswith("(")


_ATTRS = r"(?P<attrs>(?:#\[[^\]]*\]\s*)*)"
_LOAD = re.compile(_ATTRS + r"Load\s+(?:Verbose\s+)?(?:\"(?P<string>[^\"]+)\"|(?P<ident>[\w'.]+))\s*\.$")
_ACCUMULATE = re.compile(_ATTRS + r"Elpi\s+(?:Accumulate\s+(?:Db\s+[\w'.]+\s+)?File|Checker|Template\s+\w+)\s+(?P<files>.*)\.$",
                         re.S)
_EXTRA_DEPENDENCY = re.compile(_ATTRS + r"(?:From\s+[\w'.]+\s+)?Extra\s+Dependency\s+\"(?P<string>[^\"]+)\"")
_ELPI_VERSION = re.compile(r"\b(?P<which>only|skip)\s*=\s*\"(?P<pattern>[^\"]*)\"")


def missing_load(code: str, project: CoqProject) -> str | None:
    """The file a sentence loads from outside Coq's compiled libraries, when no such file is
    installed; None for any other sentence.

    ``Load "f"`` runs ``f.v``; ``Elpi Accumulate File "f.elpi"``, ``Elpi Checker``, ``Elpi
    Template`` and ``Extra Dependency "f"`` read ``f``; each is looked up in the load path when
    the sentence runs (``coq://Lib/f``: in the directory of ``Lib``). A compiled library does
    not need them, but replaying its file does, and some Debian packages install the ``.v`` and
    ``.vo`` without them (CoRN's ``Transparent_algebra.v``, Hierarchy-Builder's ``.elpi``
    files). coq-elpi's ``#[only="8.15.*"]``/``#[skip=...]`` attributes are honoured: a
    sentence the installed Coq skips loads nothing.
    """
    found = _LOAD.match(code) or _EXTRA_DEPENDENCY.match(code)
    names: list[str] = []
    if found:
        name = found.group("string") or found.group("ident")
        names = [name if name.endswith(".v") or found.re is _EXTRA_DEPENDENCY else name + ".v"]
    else:
        found = _ACCUMULATE.match(code)
        if found:
            # an identifier names an Extra Dependency; coq://Lib.Dir/f is the file f of that logical directory
            names = [re.sub(r"^coq://([^/]+)/", lambda m: m.group(1).replace(".", "/") + "/", n)
                     for n in re.findall(r'"([^"]+)"', found.group("files"))]
    if not found:
        return None
    for attr in _ELPI_VERSION.finditer(found.group("attrs")):
        if fnmatch.fnmatch(coq_version(), attr.group("pattern")) != (attr.group("which") == "only"):
            return None
    roots = tuple(sorted({(project.root / lp.path).resolve() for lp in project.load_paths}
                         | {stdlib_root(), user_contrib()}))
    return next((n for n in names if not _installed(n, roots)), None)


def _installed(name: str, roots: tuple[Path, ...]) -> bool:
    """Whether a file ``name`` (a path relative to some load-path directory) lies under ``roots``."""
    if Path(name).is_absolute():
        return Path(name).is_file()
    return any((root / name).is_file() or any(f == name or f.endswith("/" + name) for f in _files_named(root, Path(name).name))
               for root in roots)


@functools.lru_cache(maxsize=256)
def _files_named(root: Path, basename: str) -> tuple[str, ...]:
    return tuple(p.relative_to(root).as_posix() for p in root.rglob(basename) if p.is_file())


_TYPE_KEYWORDS = ("Inductive", "CoInductive", "Variant", "Record", "Structure", "Class")
_MEMBER_NAME = re.compile(rf"\s*\|?\s*(?P<name>{IDENT})")


def _type_members(text: str, kw: str) -> list[tuple[str, str, int, int]]:
    """Members declared by an inductive or record sentence: ``(name, kind, start, end)`` offsets in ``text``.

    Constructors (``| le_S : forall m, ...``), record fields (``{ f1 : T; f2 : U }``, or the single
    field of ``Class C := m : T``), an explicit record constructor (``:= mk { ... }``), and the
    further types of a mutual definition (``... with odd : nat -> Prop := ...``). Best effort on
    text: anything unusual yields fewer members, never a wrong span.
    """
    end = len(text.rstrip().rstrip("."))
    tokens = [t for t in top_level_tokens(text) if t[0] < end]
    cut = next((o for o, tok, d in tokens if tok == "where" and d == 0), end)
    # blocks of a mutual definition, separated by top-level "with"
    bounds = [0] + [o for o, tok, d in tokens if tok == "with" and d == 0 and o < cut] + [cut]
    members: list[tuple[str, str, int, int]] = []
    record = kw in ("Record", "Structure", "Class")
    for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
        if k > 0:
            m = _MEMBER_NAME.match(text, a + len("with"))
            if m:
                members.append((m.group("name"), kw.lower(), m.start("name"), b))
        body = next((o + 2 for o, tok, d in tokens if a <= o < b and tok == ":=" and d == 0), None)
        if body is None:
            continue
        if not record:
            pipes = [o for o, tok, d in tokens if body <= o < b and tok == "|" and d == 0]
            for x, y in zip([body] + pipes, pipes + [b]):
                m = _MEMBER_NAME.match(text, x)
                if m and text[x:y].strip(" \n|"):
                    members.append((m.group("name"), "constructor", m.start("name"), len(text[:y].rstrip())))
            continue
        brace = next(((o, tok) for o, tok, d in tokens if body <= o < b and d == 1 and tok == "{"), None)
        if brace is not None and not re.fullmatch(rf"\s*(?:{IDENT}\s*)?", text[body : brace[0]]):
            brace = None  # a brace inside the type of a single field: Class C := f : forall {x}, ...
        if brace is None:  # Class C := field : T.
            m = _MEMBER_NAME.match(text, body)
            if m and ":" in text[m.end():b]:
                members.append((m.group("name"), "projection", m.start("name"), len(text[:b].rstrip())))
            continue
        m = _MEMBER_NAME.match(text, body)
        if m and m.end() <= brace[0]:
            members.append((m.group("name"), "constructor", m.start("name"), m.end("name")))
        close = next((o for o, tok, d in tokens if o > brace[0] and tok == "}" and d == 1), b)
        semis = [o for o, tok, d in tokens if brace[0] < o < close and tok == ";" and d == 1]
        for x, y in zip([brace[0] + 1] + [o + 1 for o in semis], semis + [close]):
            m = _MEMBER_NAME.match(text, x)
            if m and text[x:y].strip():
                members.append((m.group("name"), "projection", m.start("name"), len(text[:y].rstrip())))
    return members
