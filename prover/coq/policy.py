"""The policy for untrusted tactics: what a generated string may ask coqtop to do.

One normalisation, in one place. :func:`check_tactic` splits the text with Coq's own sentence
rules (:func:`prover.coq.sentences.split_sentences`, adding a missing final ``.`` once, as
generated tactics often lack it), normalises every sentence (:func:`prover.coq.sentences.normalise`:
comments removed, blanks collapsed), and splits the normalised text again: it must give exactly
the same sentences. The result's :attr:`CheckedTactic.sentences` are then the only text that
exists downstream: :class:`prover.coq.session.CoqSession` sends them to coqtop and
:func:`prover.coq.render.render_proof` writes them into the script coqc checks. So a dot-less
``intros`` is written ``intros.`` and can never swallow the ``Qed.`` after it, and text that
becomes two sentences once its comments are gone (``idtac.(**)Redirect "f" Print nat.``) is
refused instead of being checked as one sentence and run as two.

A tactic is accepted if its sentences are

* zero or more focusing sentences (bullets ``-``/``+``/``*`` of any length, braces ``{``/``}``,
  a selector with a brace such as ``2: {``), followed by
* at most one tactic sentence (optionally with a goal selector ``2:``, ``all:``, ``[x]:``),

at least one in all, and the tactic sentence passes the rules below. Everything else answers
``TacticError(kind=REFUSED)`` naming the input and the reason, without reaching coqtop.

* Commands, fail-closed. In Coq 8.16's grammar every vernacular command, legacy attribute prefix
  and control prefix starts with a capitalised keyword (``Redirect``, ``Local``, ``Program``,
  ``SubClass``, ``Private``, ``Time``, ``Fail``, ``Extraction``, ``Ltac``, ``Hint``...; checked
  against ``vernac/*.mlg``, ``toplevel/g_toplevel.mlg`` and ``plugins/*/g_*.mlg``), or with an
  attribute ``#[...]``, possibly after a goal selector (queries: ``2: Check x.``). So a sentence
  whose first word, after an optional selector, starts with an uppercase letter is refused
  unless it is exactly ``Unshelve.`` (the only way back to shelved goals), a qualified name
  (``Z.order``: no command accepts a field token after its keyword) or one of the few
  capitalised Ltac names of the stdlib (:data:`CAPITALISED_TACTICS`); no list of command names
  has to be complete. Of the 78,415 proof sentences of the Coq 8.16 stdlib, all this rule refuses
  are commands (``Open Scope``, ``Variable``...) written inside proofs.
* Giving up: the identifiers ``admit``, ``give_up`` anywhere in the tactic (outside strings and
  comments). They are refused rather than run and answered ``ProofGivenUp`` because a partial
  ``admit`` would leave a search state that looks like progress but can never become a proof. (An
  admit hidden in a user's Ltac is still caught: by coqtop's "goals you gave up" message, and by
  the assumption check at verification.)
* Tactics that skip type checking (``exact_no_check`` and friends): coqtop would accept any term
  and a search would report proofs that only fail at ``Qed``.
* What reaches outside coqtop, by the grammar shared with preludes (:func:`prover.coq.reach.refusal`):
  CoqHammer's tactics that run programs or write files (``hammer_hook``, ``predict``...), the
  native compiler (``native_compute``, ``<<:``), and ``hammer`` anywhere but as a step of its own
  (``hammer.``, ``2: hammer.``), the only form that runs once per state under ``hammer_timeout``
  and is rewritten to its reconstruction tactic (:mod:`prover.coq.hammer`).
* ``abstract``/``transparent_abstract ... using NAME``: the tactic, not the backend, chooses the
  name of a global constant. It can be the theorem's own name (``Print Assumptions NAME`` would
  then describe the auxiliary constant) or the name of a lemma declared later in the file, which
  then no longer compiles. Plain ``abstract tac`` is accepted: Coq names its constant
  ``<theorem>_subproofN`` itself.
* Debugging tactics (``debug`` before any tactic, ``info_auto``, ``infoH``): their untagged traces
  make the printed state ambiguous.
* The ``par:`` selector (it starts worker processes), text containing coqtop's prompt markers
  (``<prompt>``) which would break the framing of replies, control characters and Unicode line
  separators, a line break or tab inside a string, and text longer than :data:`MAX_LENGTH`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from prover.coq.reach import refusal
from prover.coq.sentences import (
    SELECTOR,
    Sentence,
    SentenceSplitError,
    Token,
    mask_comments,
    normalise,
    split_sentences,
    tokens,
)
from prover.coq.syntax import GIVE_UP_WORDS

ALLOWED_COMMANDS: frozenset[str] = frozenset({"Unshelve."})
# capitalised Ltac names of the stdlib's own proofs (setoid_ring, micromega, QArith, Sorting); none is a
# command keyword of Coq 8.16, so a sentence starting with one can only parse as a tactic
CAPITALISED_TACTICS: frozenset[str] = frozenset({"Esimpl", "Esimpl2", "Esimpl3", "InvAdd", "Qc_unfolds"})
GIVE_UP: frozenset[str] = frozenset(GIVE_UP_WORDS)
# debugging tactics print untagged traces, which a proof state printed after them cannot be told from;
# ``debug`` is refused before any tactic
DEBUGGING: frozenset[str] = frozenset({"info_auto", "info_eauto", "info_trivial", "infoH"})
# tactics that skip type checking: coqtop accepts anything, only the kernel at Qed would object
UNCHECKED: frozenset[str] = frozenset({"exact_no_check", "vm_cast_no_check", "native_cast_no_check",
                                       "change_no_check"})
ABSTRACT: frozenset[str] = frozenset({"abstract", "transparent_abstract"})
MAX_FOCUSING = 8  # more focusing sentences than this in one step is not a plausible tactic
MAX_LENGTH = 20_000  # characters: the longest proof sentence of the stdlib has 8,497; bounds the cache too

_SELECTOR = re.compile(SELECTOR + r"\s*")
# a qualified name (Z.order): its first word is an IDENT followed by a FIELD token, which no command accepts
_QUALIFIED = re.compile(r"[A-Za-z_][\w']*\.[A-Za-z_]")
_FIRST_WORD = re.compile(r"[A-Za-z_][\w']*(?![\w'])")
# control characters, C1 controls (NEL) and Unicode line separators: Coq reads them as no blank, but
# Python's splitlines() breaks lines at them, so one sentence could become two lines of a script
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


class RefusedTactic(ValueError):
    """An untrusted tactic the policy does not let through; the message names input and reason."""


@dataclass(frozen=True)
class CheckedTactic:
    """A tactic the policy accepted: focusing sentences, then at most one tactic sentence.

    Every sentence is normalised (:func:`prover.coq.sentences.normalise`): this is the exact text
    coqtop receives and a rendered script holds.
    """

    focusing: tuple[str, ...]
    tactic: str | None  # the tactic sentence; None for a focusing-only step

    @property
    def sentences(self) -> tuple[str, ...]:
        return self.focusing + (() if self.tactic is None else (self.tactic,))

    @property
    def text(self) -> str:
        """The sentences on one line, as a proof script writes the step."""
        return " ".join(self.sentences)


@functools.lru_cache(maxsize=4096)  # a search tries the same tactic strings over and over
def check_tactic(text: str) -> CheckedTactic:
    """Accept ``text`` as one untrusted proof step, or raise :class:`RefusedTactic` saying why."""
    shown = text if len(text) <= 200 else text[:200] + "..."

    def refuse(why: str) -> RefusedTactic:
        return RefusedTactic(f"refused tactic {shown!r}: {why}")

    if len(text) > MAX_LENGTH:
        raise refuse(f"it is {len(text)} characters long (at most {MAX_LENGTH})")
    if _CONTROL.search(text):
        raise refuse("it contains control characters")
    if "<prompt>" in text or "</prompt>" in text:
        raise refuse("it contains coqtop's prompt markers")
    try:
        sentences = [normalise(s.text, "<tactic>") for s in _split(text)]
    except SentenceSplitError as exc:
        raise refuse(f"not a complete Coq sentence ({exc.what})") from None
    if not sentences:
        raise refuse("it is empty")
    again = split_sentences(" ".join(sentences), "<tactic>")
    if [s.text for s in again] != sentences:
        raise refuse(f"without its comments it is the {len(again)} sentences {[s.text for s in again]!r}, "
                     f"not {sentences!r}")
    n = 0
    while n < len(again) and again[n].is_bullet:
        n += 1
    focusing, rest = sentences[:n], sentences[n:]
    if len(rest) > 1:
        raise refuse(f"it holds {len(rest)} tactic sentences; exactly one is accepted")
    if len(focusing) > MAX_FOCUSING:
        raise refuse(f"it holds {len(focusing)} bullets or braces")
    tactic = None
    if rest:
        tactic = rest[0]
        _check_tactic_sentence(tactic, refuse)
    return CheckedTactic(tuple(focusing), tactic)


def _split(text: str) -> list[Sentence]:
    """The sentences of ``text``; a missing final dot is added once, right after the last code
    character (before trailing comments), but never after a dot: ``..`` + ``.`` would make the
    ``...`` terminator, which means something else."""
    try:
        return split_sentences(text, "<tactic>")
    except SentenceSplitError as exc:
        if exc.what != "sentence not terminated by '.'":
            raise
        end = len(mask_comments(text).rstrip())
        if text[:end].endswith("."):
            raise
        return split_sentences(text[:end] + "." + text[end:], "<tactic>")


def head_word(tactic: str) -> str | None:
    """The first word of a tactic sentence after its goal selector (``firstorder`` of ``2:
    firstorder auto.``), or None: what a per-tactic time limit is keyed by."""
    selector = _SELECTOR.match(tactic)
    word = _FIRST_WORD.match(tactic[selector.end():] if selector else tactic)
    return None if word is None else word.group()


def _check_tactic_sentence(code: str, refuse: Callable[[str], RefusedTactic]) -> None:
    selector = _SELECTOR.match(code)
    if selector is not None and selector.group().startswith("par"):
        raise refuse("the par: selector starts worker processes")
    body = code[selector.end():] if selector else code
    if body.startswith("#"):
        raise refuse("attributes belong to vernacular commands, not tactics")
    word = _FIRST_WORD.match(body)
    if (body[:1].isupper() and not _QUALIFIED.match(body) and (word is None or word.group() not in CAPITALISED_TACTICS)
            and (body not in ALLOWED_COMMANDS or selector is not None)):
        word = re.match(r"[^\s.;]+", body)
        assert word is not None  # body starts with a letter
        raise refuse(f"{word.group()!r} starts a vernacular command, not a tactic (no tactic starts with a capital)")
    toks = tokens(code)
    words = {t.text for t in toks if t.kind == "ident"}
    if words & GIVE_UP:
        raise refuse(f"{min(words & GIVE_UP)!r} gives up a goal instead of proving it")
    debugging = _debugging(toks)
    if debugging is not None:
        raise refuse(f"{debugging!r} prints debugging traces; use the tactic without them")
    if words & UNCHECKED:
        raise refuse(f"{min(words & UNCHECKED)!r} skips type checking (only Qed would catch a bad term)")
    outside = refusal(code)
    if outside is not None:
        raise refuse(outside)
    if words & ABSTRACT and "using" in words:
        raise refuse(f"{min(words & ABSTRACT)!r} ... using NAME lets the tactic name a global constant "
                     f"(it can take the theorem's own name); use it without 'using'")


def _debugging(toks: list[Token]) -> str | None:
    """The debugging tactic among ``toks`` (``debug X`` for any word X, or one of :data:`DEBUGGING`)."""
    for i, t in enumerate(toks):
        if t.kind != "ident":
            continue
        if t.text in DEBUGGING:
            return t.text
        if t.text == "debug" and i + 1 < len(toks) and toks[i + 1].kind == "ident":
            return f"debug {toks[i + 1].text}"
    return None
