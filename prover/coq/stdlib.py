"""An index of the Coq standard library sources: modules, imports, declarations and theorems.

The standard library is this project's Coq benchmark and the source of its traced data. The index
is built from the ``.v`` files under ``$(coqc -where)/theories`` by a text scan (sentences, see
:mod:`prover.coq.sentences`), not by Coq, so that listing theorems takes a fraction of a second and
needs no coqtop; the tracer (:mod:`prover.coq.tracer`) then replays the files in Coq.

Names. A declaration's ``full_name`` is its name qualified by the enclosing modules, not by
sections or the file, as Coq prints it and as tactics mostly write it: ``add_comm`` inside
``Module Nat`` of ``Coq/Arith/PeanoNat.v`` is ``Nat.add_comm``. ``qualified_name`` prefixes the
file's logical module (``Coq.Arith.PeanoNat.Nat.add_comm``) and is unique across the library.

Positions are 1-based ``(line, column)`` pairs as in LeanDojo's data; ``file_path`` is relative to
``theories/`` (``Arith/PeanoNat.v``).

The index is cached as JSON under :func:`cache_dir` (one directory per Coq version) and rebuilt
when a source file changes.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from search_tree.cache import cache_root
from search_tree.protocol import Theorem, TheoremNotFound

from .sentences import LineIndex, Sentence, mask_comments, split_sentences, strip_comments


THEOREM_KEYWORDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Fact", "Remark", "Example", "Property")
DEFINITION_KEYWORDS = (
    "Definition", "Fixpoint", "CoFixpoint", "Inductive", "CoInductive", "Variant", "Record", "Structure",
    "Class", "Instance", "Let", "Axiom", "Axioms", "Parameter", "Parameters", "Conjecture", "Function",
)
PROOF_ENDS = ("Qed", "Defined", "Admitted", "Abort")

_PREFIX = r"(?:#\[[^\]]*\]\s*)*(?:(?:Local|Global|Polymorphic|Monomorphic|Program|Private|Cumulative|NonCumulative|Canonical|Existing)\s+)*"
_IDENT = r"[A-Za-z_][\w']*(?![\w'])"
_DECL = re.compile(
    rf"{_PREFIX}(?P<kw>{'|'.join(THEOREM_KEYWORDS + DEFINITION_KEYWORDS)})\s+(?P<name>{_IDENT})"
)
_PROOF_END = re.compile(rf"(?:{'|'.join(PROOF_ENDS)})\s*\.$|Save\s+{_IDENT}\s*\.$")
_SECTION = re.compile(rf"Section\s+(?P<name>{_IDENT})\s*\.$")
_MODULE = re.compile(rf"{_PREFIX}(?:Declare\s+)?Module\s+(?:Type\s+)?(?:(?:Import|Export)\s+)?(?P<name>{_IDENT})")
_END = re.compile(rf"End\s+(?P<name>{_IDENT})\s*\.$")
_REQUIRE = re.compile(
    r"(?:From\s+(?P<from>[\w.']+)\s+)?Require\s+(?:(?:Import|Export)\s+)?(?P<mods>[^.]+(?:\.[\w']+)*)\s*\.$"
)
# names a file gives to tactics (Ltac, Tactic Notation) and hint databases: words in tactics that
# are never premises
_TACTIC_NAME = re.compile(
    rf"{_PREFIX}(?:Ltac2?\s+(?:mutable\s+|rec\s+)?(?P<ltac>{_IDENT})|Tactic\s+Notation(?:\s*\([^)]*\))?\s*\"(?P<notation>{_IDENT})\""
    rf"|Create\s+HintDb\s+(?P<db>{_IDENT}))"
)
_WITH_CLAUSE = re.compile(rf"with\s+(?:Definition|Module)\s+[\w.']+\s*:=\s*[\w.']+")


def block_sentence(code: str) -> tuple[str, str, str] | None:
    """How a sentence acts on the stack of open sections and modules: ``(kind, name, header)``.

    ``kind`` is ``"section"`` (``Section X.``), ``"module"`` (an interactive ``Module X ...`` or
    ``Module Type X ...``, which opens a block; ``header`` is the text after the name, e.g. the
    functor binders), ``"declare"`` (``Declare Module X : T``: no block, a parameter of the
    enclosing module), ``"defined"`` (``Module X := ...`` in one sentence: no block) or ``"end"``
    (``End X.``); None for any other sentence. The index and :mod:`prover.coq.context` both read
    blocks through this, so they agree on what opens one.
    """
    if (m := _SECTION.match(code)) is not None:
        return "section", m.group("name"), ""
    if (m := _MODULE.match(code)) is not None:
        if code.startswith("Declare"):
            return "declare", m.group("name"), ""
        if ":=" in _WITH_CLAUSE.sub("", code):
            return "defined", m.group("name"), ""
        return "module", m.group("name"), code[m.end():]
    if (m := _END.match(code)) is not None:
        return "end", m.group("name"), ""
    return None


class StdlibScanError(RuntimeError):
    """The stdlib sources do not have the structure the scan expects (names the file and line)."""


@dataclass(frozen=True)
class Declaration:
    """A named declaration of a source file (a lemma, definition, inductive, axiom...).

    ``start``/``end`` span the declaring sentence (for a theorem, its statement), ``name_pos`` and
    ``name_end`` the name in it (LeanDojo's ``def_pos``/``def_end_pos``). ``code`` is the sentence
    without comments; for theorems it is the statement without the proof.
    """

    full_name: str
    kind: str
    code: str
    start: tuple[int, int]
    end: tuple[int, int]
    name_pos: tuple[int, int]
    name_end: tuple[int, int]


@dataclass(frozen=True)
class TheoremEntry:
    """A theorem with a proof script: its statement sentence and the sentences of its proof.

    ``proof`` holds ``(start, end)`` character offsets of the proof's sentences after the statement,
    ``Proof.`` included, the terminator (``Qed.``/``Defined.``) excluded.
    """

    full_name: str
    kind: str
    statement: str
    offset: int  # character offset of the statement sentence
    start: tuple[int, int]
    end: tuple[int, int]  # end of the terminator (Qed.)
    proof: tuple[tuple[int, int], ...]
    terminator: str
    in_section: bool


@dataclass
class SourceFile:
    """One ``.v`` file: its logical module, imports, sentences, declarations and theorems."""

    path: str
    module: str
    requires: list[str]
    imports: list[str]  # file paths of the required modules, Init/Prelude.v implied outside Init/
    sha1: str
    sentences: list[tuple[int, int]]
    declarations: list[Declaration] = field(default_factory=list)
    theorems: list[TheoremEntry] = field(default_factory=list)
    unresolved_requires: list[str] = field(default_factory=list)
    tactic_names: list[str] = field(default_factory=list)  # Ltac, Tactic Notation and hint database names


@functools.lru_cache(maxsize=1)
def coq_version() -> str:
    """The version of the ``coqc`` on PATH (``8.16.1``); names the cache directory."""
    out = _coqc("--version")
    m = re.search(r"version\s+(\S+)", out)
    if not m:
        raise RuntimeError(f"cannot read the Coq version from `coqc --version`: {out!r}")
    return m.group(1)


@functools.lru_cache(maxsize=1)
def stdlib_root() -> Path:
    """The ``theories/`` directory of the installed standard library."""
    root = Path(_coqc("-where").strip()) / "theories"
    if not root.is_dir():
        raise RuntimeError(f"no Coq standard library sources at {root} (install the `coq` package)")
    return root


def _coqc(arg: str) -> str:
    try:
        return subprocess.run(["coqc", arg], capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        raise RuntimeError("coqc is not on PATH: install Coq (`apt-get install -y coq`)") from None


def cache_dir() -> Path:
    """Where indexes and traced data live: ``$DOJO_PROVER_CACHE`` or ``~/.cache/dojo-prover``, per Coq version."""
    base = cache_root()
    return base / f"coq-{coq_version()}"


def module_name(path: str) -> str:
    """``Arith/PeanoNat.v`` -> ``Coq.Arith.PeanoNat``."""
    if not path.endswith(".v"):
        raise ValueError(f"not a Coq source path: {path!r}")
    return "Coq." + path[:-2].replace("/", ".")


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _code_version() -> str:
    """A hash of the scanning code (this module and the sentence splitter)."""
    here = Path(__file__).parent
    return _sha1("".join((here / name).read_text() for name in ("sentences.py", "stdlib.py")))[:10]


def _logical_modules(root: Path) -> dict[str, str]:
    return {module_name(p.relative_to(root).as_posix()): p.relative_to(root).as_posix() for p in root.rglob("*.v")}


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


def scan_file(root: Path, path: str, modules: dict[str, str]) -> SourceFile:
    """Index one file; raises :class:`StdlibScanError` naming the file and line on unexpected structure."""
    text = (root / path).read_text()
    sents = split_sentences(text, path)
    lines = LineIndex(text)
    sf = SourceFile(path, module_name(path), [], [], _sha1(text), [(s.start, s.end) for s in sents])

    def fail(s: Sentence, what: str) -> StdlibScanError:
        line, col = lines.position(s.start)
        return StdlibScanError(f"{path}:{line}:{col}: {what}: {s.code[:80]!r}")

    stack: list[tuple[str, str]] = []  # ("section" | "module", name)
    i = 0
    while i < len(sents):
        s = sents[i]
        code = s.code
        i += 1
        m = _REQUIRE.match(code)
        if m:
            for name in m.group("mods").split():
                target = resolve_require(name, m.group("from"), modules)
                if target is None:
                    sf.unresolved_requires.append(name)
                elif target not in sf.requires:
                    sf.requires.append(target)
            continue
        m = _TACTIC_NAME.match(code)
        if m:
            sf.tactic_names.append(m.group("ltac") or m.group("notation") or m.group("db"))
            continue
        block = block_sentence(code)
        if block is not None:
            kind, name, _ = block
            if kind in ("section", "module"):
                stack.append((kind, name))
            elif kind == "end":
                if not stack or stack[-1][1] != name:
                    raise fail(s, f"End does not close the innermost block {stack[-1][1] if stack else '(none)'}")
                stack.pop()
            continue
        m = _DECL.match(code)
        if not m or m.group("name") == "_":  # no declaration, or an anonymous one (Instance _ : ...)
            continue
        prefix = ".".join(name for kind, name in stack if kind == "module")
        full_name = f"{prefix}.{m.group('name')}" if prefix else m.group("name")
        kw = m.group("kw")
        # offsets of the name inside the original text (code may differ from text by comments)
        name_off = s.start + s.text.find(m.group("name"), s.text.find(kw) + len(kw))
        decl = Declaration(
            full_name, kw.lower(), code, lines.position(s.start), lines.position(s.end),
            lines.position(name_off), lines.position(name_off + len(m.group("name"))),
        )
        # a declaration stated without a body (a goal to prove) is followed by its proof script
        proof: list[Sentence] = []
        terminator = ""
        is_program = "Program" in code[: m.start("kw")]
        if _needs_proof(code, kw) and not is_program:
            j = i
            while j < len(sents) and not _PROOF_END.match(sents[j].code):
                if _opens_no_proof(sents[j].code):
                    break  # e.g. an Instance whose fields were all inferred: there is no script
                proof.append(sents[j])
                j += 1
            if j < len(sents) and _PROOF_END.match(sents[j].code):
                terminator = sents[j].code.split()[0].rstrip(".")
                i = j + 1
            else:
                proof = []
        sf.declarations.append(decl)
        if kw in _TYPE_KEYWORDS:
            masked = mask_comments(s.text)
            for name, kind, a, b in _type_members(masked, kw):
                at = s.start + a
                member_name = f"{prefix}.{name}" if prefix else name
                sf.declarations.append(Declaration(
                    member_name, kind, " ".join(masked[a:b].split()), lines.position(at),
                    lines.position(s.start + b), lines.position(at), lines.position(at + len(name)),
                ))
        if kw in THEOREM_KEYWORDS and terminator in ("Qed", "Defined"):
            end = sents[i - 1].end
            sf.theorems.append(
                TheoremEntry(
                    full_name, kw.lower(), code, s.start, lines.position(s.start), lines.position(end),
                    tuple((p.start, p.end) for p in proof), terminator, any(k == "section" for k, _ in stack),
                )
            )
    if stack:
        raise StdlibScanError(f"{path}: unclosed {stack[-1][0]} {stack[-1][1]} at end of file")
    sf.imports = [modules[r] for r in sf.requires]
    if not path.startswith("Init/") and "Init/Prelude.v" not in sf.imports:
        sf.imports.insert(0, "Init/Prelude.v")
    return sf


_TYPE_KEYWORDS = ("Inductive", "CoInductive", "Variant", "Record", "Structure", "Class")
_OPEN, _CLOSE = re.compile(r"[(\[{]|\bmatch\b"), re.compile(r"[)\]}]|\bend\b")
_TOKEN = re.compile(r'"(?:[^"]|"")*"|\bmatch\b|\bend\b|\bwith\b|\bwhere\b|:=|[(\[{)\]};|]')
_MEMBER_NAME = re.compile(rf"\s*\|?\s*(?P<name>{_IDENT})")


def _top_level(text: str):
    """``(offset, token, depth)`` of the tokens that matter for splitting a type declaration.

    Depth counts brackets and ``match ... end``; strings are skipped (comments must be masked).
    """
    depth = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith('"'):
            continue
        if _OPEN.fullmatch(tok):
            depth += 1
            yield m.start(), tok, depth
        elif _CLOSE.fullmatch(tok):
            yield m.start(), tok, depth
            depth -= 1
        else:
            yield m.start(), tok, depth


def _type_members(text: str, kw: str) -> list[tuple[str, str, int, int]]:
    """Members declared by an inductive or record sentence: ``(name, kind, start, end)`` offsets in ``text``.

    Constructors (``| le_S : forall m, ...``), record fields (``{ f1 : T; f2 : U }``, or the single
    field of ``Class C := m : T``), an explicit record constructor (``:= mk { ... }``), and the
    further types of a mutual definition (``... with odd : nat -> Prop := ...``). Best effort on
    text: anything unusual yields fewer members, never a wrong span.
    """
    end = len(text.rstrip().rstrip("."))
    tokens = [t for t in _top_level(text) if t[0] < end]
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
        if brace is not None and not re.fullmatch(rf"\s*(?:{_IDENT}\s*)?", text[body : brace[0]]):
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


def _opens_no_proof(code: str) -> bool:
    """Sentences that never occur inside a proof script: declarations and block structure."""
    return any(r.match(code) for r in (_DECL, _SECTION, _MODULE, _END, _REQUIRE))


def _needs_proof(code: str, kw: str) -> bool:
    """Whether a declaration sentence opens a proof: a theorem, or a definition without ``:=``."""
    if kw in THEOREM_KEYWORDS:
        return ":=" not in code
    if kw in ("Definition", "Fixpoint", "CoFixpoint", "Instance", "Let"):
        return ":=" not in strip_comments(code)
    return False


class StdlibIndex:
    """The indexed standard library: files in dependency order, theorems by name, the split."""

    def __init__(self, root: Path, files: list[SourceFile]) -> None:
        self.root = root
        self.files: dict[str, SourceFile] = {f.path: f for f in _dependency_order(files)}
        self._by_name: dict[str, list[tuple[SourceFile, TheoremEntry]]] = {}
        for f in self.files.values():
            for t in f.theorems:
                self._by_name.setdefault(t.full_name, []).append((f, t))
                self._by_name.setdefault(f"{f.module}.{t.full_name}", []).append((f, t))

    def theorems(self, files: list[str] | None = None) -> list[Theorem]:
        """Theorems with a Qed/Defined proof, in file order; optionally only those of ``files``."""
        chosen = self.files.values() if files is None else [self.file(p) for p in files]
        return [to_theorem(f, t) for f in chosen for t in f.theorems]

    def file(self, path: str) -> SourceFile:
        try:
            return self.files[path]
        except KeyError:
            close = difflib.get_close_matches(path, list(self.files), n=3)
            raise FileNotFoundError(f"no stdlib file {path!r} under {self.root}; close: {close}") from None

    def theorem(self, name: str) -> Theorem:
        """The theorem named ``name`` (``Nat.add_comm`` or ``Coq.Arith.PeanoNat.Nat.add_comm``).

        Raises :class:`TheoremNotFound` with close matches for an unknown name, and for a short
        name defined in several files, listing the qualified names to choose from.
        """
        found = self._by_name.get(name, [])
        if len(found) == 1:
            return to_theorem(*found[0])
        if found:
            options = sorted(f"{f.module}.{t.full_name}" for f, t in found)
            raise TheoremNotFound(f"theorem name {name!r} is ambiguous in the Coq stdlib; use one of {options}")
        close = difflib.get_close_matches(name, list(self._by_name), n=5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise TheoremNotFound(f"no theorem {name!r} in the Coq stdlib at {self.root}{hint}")


def to_theorem(f: SourceFile, t: TheoremEntry) -> Theorem:
    """The protocol's :class:`Theorem` for an index entry; ``extra`` carries what the backend needs."""
    return Theorem(
        full_name=t.full_name,
        file_path=f.path,
        position=t.start,
        statement=t.statement,
        extra={
            "module": f.module,
            "qualified_name": f"{f.module}.{t.full_name}",
            "offset": t.offset,
            "end": t.end,
            "in_section": t.in_section,
        },
    )


def _dependency_order(files: list[SourceFile]) -> list[SourceFile]:
    """Files sorted so that every file comes after the files it imports (ties by path)."""
    by_path = {f.path: f for f in files}
    done: set[str] = set()
    out: list[SourceFile] = []

    def visit(path: str, trail: tuple[str, ...]) -> None:
        if path in done or path not in by_path:
            return
        if path in trail:
            raise StdlibScanError(f"import cycle: {' -> '.join(trail + (path,))}")
        for dep in by_path[path].imports:
            visit(dep, trail + (path,))
        done.add(path)
        out.append(by_path[path])

    for p in sorted(by_path):
        visit(p, ())
    return out


def _index_from_json(data: dict) -> list[SourceFile]:
    files = []
    for d in data["files"]:
        decls = [Declaration(**{k: tuple(v) if isinstance(v, list) else v for k, v in x.items()}) for x in d.pop("declarations")]
        thms = [
            TheoremEntry(**{k: (tuple(map(tuple, v)) if k == "proof" else tuple(v) if isinstance(v, list) else v) for k, v in x.items()})
            for x in d.pop("theorems")
        ]
        d["sentences"] = [tuple(x) for x in d["sentences"]]
        files.append(SourceFile(**d, declarations=decls, theorems=thms))
    return files


def load_index(root: Path | None = None, rebuild: bool = False, progress: bool = True) -> StdlibIndex:
    """The index of ``root`` (default: the installed stdlib), from the cache when it is current.

    The cache is keyed by the Coq version, the sources root and :func:`_code_version` (so a change
    of the scanner never serves a stale index); a file whose contents changed since (by SHA-1) is
    rescanned.
    """
    root = root or stdlib_root()
    cache = cache_dir() / f"stdlib-index-{_code_version()}-{_sha1(str(root.resolve()))[:8]}.json"
    cached: dict[str, SourceFile] = {}
    if cache.exists() and not rebuild:
        cached = {f.path: f for f in _index_from_json(json.loads(cache.read_text()))}
    modules = _logical_modules(root)
    paths = sorted(modules.values())
    files: list[SourceFile] = []
    changed = False
    bar = None
    if progress and len(cached) < len(paths) // 2:
        from tqdm import tqdm

        bar = tqdm(total=len(paths), desc="indexing Coq stdlib", unit="file", file=sys.stderr)
    for p in paths:
        f = cached.get(p)
        if f is None or f.sha1 != _sha1((root / p).read_text()):
            f = scan_file(root, p, modules)
            changed = True
        files.append(f)
        if bar:
            bar.update()
    if bar:
        bar.close()
    if changed or len(cached) != len(files):
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps({"coq": coq_version(), "files": [asdict(f) for f in files]}))
        tmp.replace(cache)
    return StdlibIndex(root, files)


SPLITS = ("train", "val", "test")
SPLIT_FILE = Path(__file__).parent / "data" / "stdlib_split.json"


def split_of(path: str) -> str:
    """The split of a stdlib file: by SHA-256 of its logical module name, 80% train, 10% val, 10% test.

    Splitting by file (not by theorem) keeps a test theorem's neighbours, which often restate it,
    out of the training data; hashing the name makes the split independent of file order and of
    files added later.
    """
    bucket = int(hashlib.sha256(module_name(path).encode()).hexdigest(), 16) % 100
    return "train" if bucket < 80 else "val" if bucket < 90 else "test"


def compute_split(paths: list[str]) -> dict[str, list[str]]:
    """The split of ``paths`` as stored in :data:`SPLIT_FILE`."""
    out: dict[str, list[str]] = {s: [] for s in SPLITS}
    for p in sorted(paths):
        out[split_of(p)].append(p)
    return out


@functools.lru_cache(maxsize=1)
def load_split() -> dict[str, list[str]]:
    """The shipped split: ``{"train": [file paths], "val": [...], "test": [...]}`` (paths under theories/)."""
    data = json.loads(SPLIT_FILE.read_text())
    return {s: data[s] for s in SPLITS}


def stdlib_theorems(split: str | None = None, index: StdlibIndex | None = None) -> list[Theorem]:
    """The benchmark: theorems with a Qed/Defined proof in the files of ``split`` (all when ``None``)."""
    index = index or load_index()
    if split is None:
        return index.theorems()
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    wanted = set(load_split()[split])
    return index.theorems([p for p in index.files if p in wanted])
