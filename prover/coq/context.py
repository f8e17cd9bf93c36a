"""Where a Coq theorem is opened: the sentences before it, its statement, and how to run Coq.

A stdlib theorem is opened in the context of its own file up to (not including) its statement, so
neither it nor anything after it is available, and its own module is never ``Require``d: coqtop
runs the file's earlier sentences itself, under the file's logical name (``-top``), with
``-noinit`` for the files of ``Init/`` (which the stdlib compiles without the Prelude).

An ad-hoc theorem (a user's lemma, a test) is a statement plus a prelude of sentences such as
``Require Import Arith.``; :func:`adhoc_theorem` builds the :class:`Theorem` for one. A prelude is
the user's text, not library text, so it is checked sentence by sentence against an allow-list
(:func:`check_prelude`, fail closed). What a prelude may contain:

* loading and scoping: ``Require``/``From ... Require``, ``Import``, ``Export``, ``Open Scope``,
  ``Close Scope``, ``Declare Scope``, ``Delimit Scope``, ``Bind Scope``;
* declarations: ``Definition``, ``Fixpoint``, ``CoFixpoint``, ``Inductive``, ``CoInductive``,
  ``Variant``, ``Record``, ``Structure``, ``Class``, ``Instance``, ``Existing Instance``,
  ``Coercion``, ``Canonical``, ``Scheme``, ``Let``, lemmas (``Lemma``/``Theorem``/... with a
  proof whose tactic sentences pass :func:`prover.coq.policy.check_tactic`, ended by ``Qed``,
  ``Defined``, ``Admitted`` or ``Abort``), and ``Axiom``/``Parameter``/``Conjecture``;
* notations, hints and tactics: ``Notation``, ``Infix``, ``Reserved Notation``, ``Arguments``,
  ``Implicit Types``, ``Generalizable``, ``Hint``, ``Create HintDb``, ``Ltac``, ``Tactic
  Notation``, ``Opaque``, ``Transparent``; plain ``Set``/``Unset`` of the few parsing options in
  :data:`prover.coq.reach.SAFE_OPTIONS`;
* blocks: ``Section``, ``Variable(s)``, ``Hypothesis``/``Hypotheses``, ``Context``, ``Module``,
  ``Module Type``, ``Declare Module``, ``Include``, ``End`` -- every block the prelude opens must be
  closed in it, so the statement is never inside a user's section (whose hypotheses it would
  silently assume) or functor (whose parameters' fields the kernel treats as given);
* attributes ``#[local]``, ``#[global]``, ``#[export]`` and the prefixes ``Local``, ``Global``.

Every sentence, and the statement, must also pass the grammar shared with the tactic policy
(:func:`prover.coq.reach.refusal`): no CoqHammer tactic that runs a program (``hammer_hook``,
``predict``...) anywhere, not even inside an ``Ltac`` body, a ``Hint Extern`` or an ``ltac:(...)``
term; no native compiler; library loads by their grammar only (no ``Extra Dependency``); no
``Export``/``Local``/``Global``/``#[...]`` form of ``Set``/``Unset``. And no ``hammer`` at all: a
prelude is compiled again by the verification, which must not call external provers.

Everything else is refused up front with a one-line error naming the sentence -- among it what
acts outside the file or fakes the check (``Redirect``, ``Extraction``, ``Load``, ``Cd``,
``Declare ML Module``, ``Add LoadPath``, ``Drop``, ``Quit``) and what switches a kernel check off
(``Unset Guard Checking``, ``#[bypass_check(...)]``, ``Unset Universe Checking``, ``Unset
Positivity Checking``). Axioms, parameters,
admitted lemmas and declared modules are accepted in the prelude, but the kernel re-check
(:mod:`prover.coq.verify`) names them, so a proof in such a context is "not proved (assumes X)".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from search_tree.protocol import Theorem

from .policy import RefusedTactic, check_tactic
from .project import read_source
from .reach import calls_atp, refusal
from .records import CoqFields, SourceFile
from .sentences import SentenceSplitError, split_sentences, strip_comments
from .stdlib import block_sentence

ADHOC_MODULE = "DojoScratch"
GOAL_NAME = "Unnamed_thm"  # the name Coq gives the theorem of a ``Goal`` sentence
_ATTRIBUTES = r"(?:#\[[^\]]*\]\s*)*"
_NAME = re.compile(_ATTRIBUTES + r"(?:(?:Local|Global|Polymorphic|Monomorphic|Program)\s+)*"
                   r"(?:(?P<goal>Goal)(?![\w'])|(?:Theorem|Lemma|Corollary|Proposition|Fact|Remark|Example|Property"
                   r"|Definition)\s+(?P<name>[A-Za-z_][\w']*))")
_UNIVERSE_BINDER = re.compile(r"@\{[^{}]*\}")
_SAFE_ATTRIBUTES = frozenset({"local", "global", "export"})
# first words (after attributes and Local/Global) of the sentences a prelude may hold outside proofs
_PRELUDE_COMMANDS = frozenset("""
Require From Import Export Open Close Delimit Bind Definition Fixpoint CoFixpoint Inductive CoInductive
Variant Record Structure Class Instance Existing Coercion Canonical Scheme Let Axiom Axioms Parameter
Parameters Conjecture Notation Infix Reserved Arguments Implicit Generalizable Hint Create Ltac Tactic
Opaque Transparent Section Variable Variables Hypothesis Hypotheses Context Module Include End
Set Unset Declare Theorem Lemma Corollary Proposition Fact Remark Example Property
""".split())
_PROOF_OPENING = re.compile(r"Proof\s+(?:using|with)\b.*\.\Z", re.S)
_STARTS_PROOF = frozenset("Theorem Lemma Corollary Proposition Fact Remark Example Property".split())
_PROOF_ENDS = frozenset({"Qed", "Defined", "Admitted", "Abort"})
_HEAD = re.compile(r"(?P<attrs>(?:#\[[^\]]*\]\s*)*)(?P<prefix>(?:(?:Local|Global)\s+)*)(?P<words>.*)", re.S)
_STRINGS = re.compile(r'"(?:[^"]|"")*"')


@dataclass(frozen=True)
class CoqContext:
    """Everything needed to open one theorem in coqtop and to re-check a proof with coqc.

    ``key`` identifies the file: two contexts with the same key have prefixes that are prefixes of
    one another, so a coqtop that replayed one can move to the other with ``BackTo`` and a little
    more replay. ``prefix`` is what coqtop runs before the statement (proofs of earlier lemmas may
    be elided, see :func:`file_context`); ``source_prefix`` is the file's real text before the
    statement (with the signatures of the modules still open dropped, see :func:`_unsealed`),
    which :mod:`prover.coq.verify` compiles. ``module`` is the logical module name
    (``Coq.Arith.PeanoNat``) under which both run; ``name`` the theorem's short name as its file
    refers to it right after its proof.
    """

    key: str
    name: str
    statement: str
    prefix: tuple[str, ...]
    source_prefix: str
    module: str
    noinit: bool = False
    trusted_prefix: bool = True  # the prefix is stdlib text, so the axioms it declares are the library's
    closing: tuple[str, ...] = ()  # ``End X.`` for the sections and modules open at the statement
    # functor arguments and declared modules of the open modules: Print Assumptions lists their
    # fields (``X.lt``) as axioms, though they are parameters of the library's own functors
    module_parameters: tuple[str, ...] = ()
    # the statement sits inside a module still open (a functor, a module type, a plain module):
    # coqchk's summary does not see what a functor's or module type's body declares
    inside_module: bool = False
    # sentences added right before the statement (CoqHammer, Lia: :mod:`prover.coq.additions`):
    # already in ``prefix``; :mod:`prover.coq.verify` writes them after ``source_prefix``, and the
    # printed proof names them
    additions: tuple[str, ...] = ()
    # the project's -Q/-R/-I flags (for coqtop, coqc and coqchk) and its -arg options (coqtop and
    # coqc only): given when the processes start, since coqtop cannot take load paths later
    load_path: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    # a project's file: the axioms of the project's other files count only where the theorem uses
    # them (see prover.coq.verify), since coqchk lists those of every library loaded
    project_file: bool = False
    # the sentence that opens the theorem's proof in its file when it is ``Proof using ...`` (or
    # ``Proof with ... using ...``): in a section it decides which section variables the lemma may
    # use, hence what it states once the section closes, so the final check opens the proof with it
    proof_opening: str = "Proof."
    # the theorem's own proof in its file, from the sentence after the statement to its terminator
    # (``Qed.``, ``Admitted.``...): in a section, which section variables a lemma abstracts over
    # (what it states once the section closes) depends on it, so the final check compiles the
    # declared lemma beside the proof and compares (:mod:`prover.coq.verify`); None where the
    # statement has no proof in a file (an ad-hoc theorem)
    declared_proof: str | None = None

    @property
    def coqtop_args(self) -> tuple[str, ...]:
        return self.load_path + self.options + ("-top", self.module) + (("-noinit",) if self.noinit else ())


def theorem_name(statement: str) -> str:
    """The name a ``Theorem``/``Lemma``/.../``Goal`` sentence declares (``Goal``: Coq's
    ``Unnamed_thm``); ValueError naming the text if it is not a statement."""
    m = _statement(statement)
    return GOAL_NAME if m.group("goal") else m.group("name")


def rename_statement(statement: str, name: str) -> str:
    """``statement`` declaring ``name`` instead of its own name (``Goal T.`` -> ``Lemma name : T.``).

    :mod:`prover.coq.verify` checks every proof under a fresh name nobody can predict, so that no
    constant a tactic or prelude made (``transparent_abstract ... using <name>``) can stand in
    for the theorem, and a ``Goal`` has a name to look up.
    """
    text = strip_comments(statement).strip()
    m = _statement(text)
    if m.group("goal"):
        return f"{text[:m.start('goal')]}Lemma {name} :{text[m.end('goal'):]}"
    return f"{text[:m.start('name')]}{name}{text[m.end('name'):]}"


def statement_type(statement: str) -> str:
    """The type ``statement`` declares, as one term: ``forall BINDERS, TYPE`` for ``Lemma l
    BINDERS : TYPE.`` (``TYPE`` when it has no binders, or is a ``Goal``). Read from the text:
    the binders end at the first ``:`` outside brackets and strings. :mod:`prover.coq.verify`
    elaborates it in the theorem's own context to pin what the statement means there; a
    statement this misreads gives a term that does not check, so the pin fails closed."""
    text = strip_comments(statement).strip()
    m = _statement(text)
    rest = text[m.end():].strip()
    if not rest.endswith("."):
        raise ValueError(f"a statement ends with '.': {statement[:200]!r}")
    rest = rest[:-1]
    if m.group("goal"):
        return rest.strip()
    rest = rest[len(universe_binder(statement)):]
    colon = _top_level_colon(rest)
    if colon is None:
        raise ValueError(f"no ':' before the type of the statement: {statement[:200]!r}")
    binders, body = rest[:colon].strip(), rest[colon + 1:].strip()
    return f"forall {binders}, {body}" if binders else body


def universe_binder(statement: str) -> str:
    """The universe binder right after the name ``statement`` declares (``@{uT uU}`` in ``Lemma
    l@{uT uU} : ...``), or ``""``. Its universes are named in the statement's type, so a definition
    of that type (:func:`statement_type`) must bind them too: :mod:`prover.coq.verify` declares
    its pin with this binder, polymorphic or not as the file's lemmas are."""
    m = _statement(statement)
    if m.group("goal"):
        return ""
    found = _UNIVERSE_BINDER.match(strip_comments(statement).strip(), m.end())
    return found.group(0) if found else ""


def _top_level_colon(text: str) -> int | None:
    """The index of the first ``:`` of ``text`` outside (), {}, [] and strings, not part of ``:=``."""
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            end = _STRINGS.match(text, i)
            i = end.end() if end is not None else len(text)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0 and text[i + 1:i + 2] != "=":
            return i
        i += 1
    return None


def _statement(statement: str) -> re.Match:
    m = _NAME.match(strip_comments(statement).strip())
    if m is None:
        raise ValueError(f"not a theorem statement (Theorem/Lemma/.../Goal name : type.): {statement[:200]!r}")
    return m


def adhoc_theorem(statement: str, prelude: tuple[str, ...] | list[str] = (), name: str | None = None) -> Theorem:
    """A :class:`Theorem` for a user's statement, opened after the sentences of ``prelude``.

    ``statement`` is one sentence such as ``"Lemma two : 1 + 1 = 2."``; ``prelude`` holds whole
    sentences (``"Require Import Arith."``, definitions...). Both are checked here -- to be
    complete sentences, and the prelude against :func:`check_prelude` -- so that a typo or a
    refused command is reported naming the text rather than as a coqtop hang or a false proof.
    """
    try:
        parts = split_sentences(statement, "<statement>")
    except SentenceSplitError as exc:
        raise ValueError(f"theorem statement {statement[:200]!r}: {exc.what}") from None
    if len(parts) != 1:
        raise ValueError(f"a theorem statement must be exactly one sentence, got {len(parts)}: {statement[:200]!r}")
    sentences: list[str] = []
    for text in prelude:
        try:
            sentences.extend(s.text for s in split_sentences(text, "<prelude>"))
        except SentenceSplitError as exc:
            raise ValueError(f"prelude sentence {text[:200]!r}: {exc.what}") from None
    declared = theorem_name(statement)
    _check_reach(parts[0].code, f"theorem statement {statement[:200]!r}")
    _check_attributes(parts[0].code, f"theorem statement {statement[:200]!r}")
    check_prelude(sentences)
    from .index import requires_ssreflect

    ssreflect = any(requires_ssreflect(strip_comments(text).strip()) for text in sentences)
    return Theorem(full_name=name or declared, statement=parts[0].text,
                   extra=CoqFields(prelude=tuple(sentences), ssreflect=ssreflect).stored())


def check_prelude(sentences: tuple[str, ...] | list[str]) -> None:
    """Refuse, with a ValueError naming the sentence, any prelude sentence outside the allow-list
    of the module docstring, and a prelude that leaves a section or module open."""
    blocks: list[str] = []
    in_proof = False
    for text in sentences:
        code = strip_comments(text).strip()
        where = f"prelude sentence {text[:200]!r}"
        _check_reach(code, where)
        if calls_atp(code):
            raise ValueError(f"{where}: a prelude may not call external provers (coqc compiles it again to "
                             f"check a proof, and a checked proof calls none)")
        if in_proof:
            in_proof = _check_proof_sentence(code, where)
            continue
        words = _check_attributes(code, where)
        first = words.split(None, 1)[0].rstrip(".") if words else ""
        if first not in _PRELUDE_COMMANDS:
            raise ValueError(f"{where}: {first or code!r} is not allowed in a prelude (see prover.coq.context)")
        if first == "Declare" and not re.match(r"Declare\s+(?:Module|Scope)\b", words):
            raise ValueError(f"{where}: only Declare Module and Declare Scope are allowed in a prelude")
        elif first == "Create" and not re.match(r"Create\s+HintDb\b", words):
            raise ValueError(f"{where}: only Create HintDb is allowed in a prelude")
        elif first == "Tactic" and not re.match(r"Tactic\s+Notation\b", words):
            raise ValueError(f"{where}: only Tactic Notation is allowed in a prelude")
        block = block_sentence(code)
        if block is not None and block[0] in ("section", "module"):
            blocks.append(block[1])
        elif block is not None and block[0] == "end":
            if not blocks or blocks[-1] != block[1]:
                raise ValueError(f"{where}: closes {block[1]!r}, but the open block is {blocks[-1] if blocks else 'none'}")
            blocks.pop()
        in_proof = _opens_proof(first, words)
    if in_proof:
        raise ValueError("the prelude ends inside a proof: end it with Qed, Defined, Admitted or Abort")
    if blocks:
        raise ValueError(f"the prelude leaves {', '.join(blocks)} open: close every Section and Module "
                         f"it opens (a statement inside them would assume their hypotheses)")


def _check_reach(code: str, where: str) -> None:
    """ValueError naming ``where`` when the sentence fails :func:`prover.coq.reach.refusal`."""
    try:
        why = refusal(code)
    except SentenceSplitError as exc:
        why = exc.what
    if why is not None:
        raise ValueError(f"{where}: {why}")


def _check_attributes(code: str, where: str) -> str:
    """The sentence after its attributes and Local/Global prefixes; ValueError for an attribute
    outside ``#[local]``, ``#[global]``, ``#[export]`` (``#[bypass_check(guard)]`` switches the
    guard checker off)."""
    m = _HEAD.match(code)
    assert m is not None  # every part of _HEAD may be empty
    for attr in re.findall(r"#\[([^\]]*)\]", m.group("attrs")):
        for item in attr.split(","):
            if item.strip() not in _SAFE_ATTRIBUTES:
                raise ValueError(f"{where}: attribute {item.strip()!r} is not allowed "
                                 f"(only {', '.join(sorted(_SAFE_ATTRIBUTES))})")
    return m.group("words")


def _opens_proof(first: str, words: str) -> bool:
    """Whether a prelude declaration is followed by a proof script (``Lemma``, or a
    ``Definition``/``Instance``/``Fixpoint`` stated without a body)."""
    if first in _STARTS_PROOF:
        return True
    return first in ("Definition", "Instance", "Fixpoint", "CoFixpoint", "Let") and ":=" not in _STRINGS.sub('""', words)


def _check_proof_sentence(code: str, where: str) -> bool:
    """Check one sentence of a prelude lemma's proof; whether the proof is still open after it."""
    first = code.split(None, 1)[0].rstrip(".") if code else ""
    if first in _PROOF_ENDS:
        return False
    if first == "Proof":
        if re.match(r"Proof\s*\.$|Proof\s+(?:using|with)\b", code) is None:
            raise ValueError(f"{where}: only 'Proof.', 'Proof using ...' and 'Proof with ...' open a proof here")
        return True
    try:
        check_tactic(code)
    except RefusedTactic as exc:
        raise ValueError(f"{where}: {exc}") from None
    return True


def adhoc_context(theorem: Theorem) -> CoqContext:
    """The context of a theorem made by :func:`adhoc_theorem` (or any with a :attr:`CoqFields.prelude`)."""
    prelude = CoqFields.of(theorem).prelude or ()
    key = "adhoc:" + hashlib.sha1("\n".join(prelude).encode()).hexdigest()
    return CoqContext(key=key, name=theorem_name(theorem.statement), statement=theorem.statement,
                      prefix=prelude, source_prefix="\n".join(prelude), module=ADHOC_MODULE,
                      trusted_prefix=False)


def file_context(theorem: Theorem, index, elide_proofs: bool = True) -> CoqContext:
    """The context of a theorem of a project's file from the project's index (:mod:`prover.coq.index`).

    The project (the stdlib, an installed library, a user's project) decides the load-path flags,
    whether the file is compiled without the Prelude, and whether the axioms its text declares are
    the library's own (only the stdlib's are, see :mod:`prover.coq.verify`).

    With ``elide_proofs``, earlier lemmas of the file that end in ``Qed`` and are not inside a
    section are sent to coqtop as their statement plus ``Admitted.``: opaque proofs cannot change
    what later sentences see, and skipping them makes opening a theorem deep in a long file much
    faster. Lemmas in sections keep their proofs (the proof decides which section variables the
    lemma abstracts over), as do ``Defined`` ones (their bodies compute). The file's real text is
    what :mod:`prover.coq.verify` compiles, so elision never reaches the final check.
    """
    source = index.file(theorem.file_path)
    text = read_source(index.root, source.path)
    offset = CoqFields.of(theorem).offset
    skipped: set[int] = set()  # starts of sentences to leave out
    admitted_after: set[int] = set()  # starts of statements followed by Admitted.
    if elide_proofs:
        starts = [s for s, _ in source.sentences]
        position = {s: i for i, s in enumerate(starts)}
        for entry in source.theorems:
            if entry.offset >= offset or entry.in_section or entry.terminator != "Qed":
                continue
            i = position[entry.offset]
            last = position[entry.proof[-1][0]] if entry.proof else i
            skipped.update(starts[i + 1:last + 2])  # the proof sentences and the terminator
            admitted_after.add(entry.offset)
    prefix: list[str] = []
    blocks: list[tuple[str, tuple[str, ...]]] = []
    # the modules opened and not yet closed: (depth in ``blocks``, start, end, sentence); only
    # their signatures are dropped for the check (a closed module keeps its seal, see _unsealed)
    unclosed: list[tuple[int, int, int, str]] = []
    for start, end in source.sentences:
        if end > offset:
            break
        code = strip_comments(text[start:end]).strip()
        if _track_block(code, blocks):
            unclosed.append((len(blocks), start, end, code))
        while unclosed and unclosed[-1][0] > len(blocks):
            unclosed.pop()
        if start in skipped:
            continue
        prefix.append(text[start:end])
        if start in admitted_after:
            prefix.append("Admitted.")
    checked: list[str] = []  # the text verify compiles: the file's, the open modules' signatures dropped
    done = 0
    for _, start, end, code in unclosed:
        checked.append(text[done:start] + _unsealed(code))
        done = end
    at = next(k for k, (s, _) in enumerate(source.sentences) if s == offset)
    stop = source.sentences[at][1]
    following = source.sentences[at + 1:]
    opening = strip_comments(text[slice(*following[0])]).strip() if following else ""
    project = index.project
    return CoqContext(
        key=f"{'stdlib' if project.is_stdlib else project.key}:{source.path}",
        name=theorem_name(text[offset:stop]),
        statement=text[offset:stop],
        prefix=tuple(prefix),
        source_prefix="".join(checked) + text[done:offset],
        module=source.module,
        noinit=project.noinit(source.path),
        trusted_prefix=project.is_stdlib,
        project_file=not project.is_stdlib,
        load_path=project.load_args,
        options=project.options,
        closing=tuple(f"End {name}." for name, _ in reversed(blocks)),
        module_parameters=tuple(p for _, params in blocks for p in params),
        inside_module=bool(unclosed),
        proof_opening=opening if _PROOF_OPENING.match(opening) else "Proof.",
        declared_proof=text[stop:_proof_end(source, at)],
    )


def _proof_end(source: SourceFile, at: int) -> int:
    """Where the proof of the theorem whose statement is ``source``'s sentence ``at`` ends: the end
    of its terminator as the index recorded it, the sentence right after the proof's sentences
    (:func:`prover.coq.vernacular.proof_end` decides where that is, for the index, the tracer and
    this copy alike). ValueError naming the file when the index holds no
    proved or admitted lemma there, rather than a copy that runs on or none at all, which would
    leave the final check's section comparison out (:mod:`prover.coq.verify`)."""
    offset = source.sentences[at][0]
    entry = next((t for t in source.theorems + source.admitted if t.offset == offset), None)
    if entry is None or at + 1 + len(entry.proof) >= len(source.sentences):
        raise ValueError(f"{source.path}: the index holds no proof for the statement at offset {offset} "
                         f"(rebuild it with --rebuild-index)")
    return source.sentences[at + 1 + len(entry.proof)][1]


_BINDER = re.compile(r"\(\s*(?:(?:Import|Export)\s+)?([A-Za-z_][\w'\s]*?)\s*:")


def _unsealed(code: str) -> str:
    """A module-opening sentence without its signature (``Module Make (X : T) <: S.`` ->
    ``Module Make (X : T).``).

    Closing a module checks it against its signature, whose fields after the theorem are, by
    construction, missing from the checked file. Inside the module nothing depends on the
    signature (it only restricts the view from outside), so the theorem is checked exactly as in
    the library, and coqc can be required to accept the whole file. A module closed before the
    theorem keeps its signature: there the seal is what the later text sees (mathcomp's
    ``Module SetDef : SetDefSig`` hides that ``pred_of_set`` is a function, which its
    ``Coercion ... >-> fin_pred_sort`` needs).
    """
    at = _signature(code)
    return code if at is None else code[:at].rstrip() + "."


def _signature(code: str) -> int | None:
    """Where the signature of a module-opening sentence starts (at its ``:``, or at the ``<`` of
    ``<:``); None without one. Binders' colons are inside parentheses."""
    depth = 0
    for i, c in enumerate(code):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and c == ":" and code[i + 1:i + 2] != "=":
            return i - 1 if code[i - 1] == "<" else i
    return None


def open_modules(text: str, sentences: Iterable[tuple[int, int]], offset: int) -> int:
    """How many modules (functors, module types, plain modules) are open at ``offset`` of a
    file's ``text`` whose sentence spans are ``sentences``: sections are not counted."""
    blocks: list[tuple[str, tuple[str, ...]]] = []
    opened: list[int] = []  # the depth in ``blocks`` of each module still open
    for start, end in sentences:
        if end > offset:
            break
        if _track_block(strip_comments(text[start:end]).strip(), blocks):
            opened.append(len(blocks))
        while opened and opened[-1] > len(blocks):
            opened.pop()
    return len(opened)


def _track_block(code: str, blocks: list[tuple[str, tuple[str, ...]]]) -> bool:
    """Maintain the stack of open sections and modules, with each module's parameters; whether
    ``code`` opened a module (whose signature :func:`_unsealed` drops for the check).

    Uses the index's own reading (:func:`prover.coq.stdlib.block_sentence`) so that both agree on what opens a
    block: ``Section X.``, an interactive ``Module X`` (not ``Declare Module`` nor ``Module X :=
    ...``), and ``End X.``. A module's parameters are its functor arguments (``Module Make (X :
    OrderedType)``) and the modules declared inside it (``Declare Module E : T``).
    """
    block = block_sentence(code)
    if block is None:
        return False
    kind, name, header = block
    if kind == "section":
        blocks.append((name, ()))
    elif kind == "declare":
        if blocks:
            outer, params = blocks[-1]
            blocks[-1] = (outer, params + (name,))
    elif kind == "module":
        names = tuple(n for b in _BINDER.findall(header.split(":=")[0]) for n in b.split())
        blocks.append((name, names))
        return True
    elif kind == "end" and blocks and blocks[-1][0] == name:
        blocks.pop()
    return False
