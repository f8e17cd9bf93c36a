"""The policy for untrusted tactics: what a generated string may ask coqtop to do.

A tactic reaches coqtop only if it is, after Coq's own sentence splitting
(:func:`prover.coq.sentences.split_sentences`):

* zero or more focusing sentences (bullets ``-``/``+``/``*`` of any length, braces ``{``/``}``,
  a selector with a brace such as ``2: {``), followed by
* at most one tactic sentence (optionally with a goal selector ``2:``, ``all:``, ``[x]:``),

and at least one sentence in all (a missing final ``.`` is added, as generated tactics often lack
it). Everything else answers ``TacticError(kind=REFUSED)`` naming the
input and the reason, without reaching coqtop:

* vernacular commands (``Drop``, ``Load``, ``Declare ML Module``, ``Quit``, ``Qed``, ``Abort``,
  ``Axiom``, ``Set``/``Unset``, ``Back``/``BackTo``/``Undo``, ``Redirect``, ``Require``, ``Print``,
  ...), attributes (``#[...]``) and control prefixes (``Time``, ``Timeout``, ``Fail``,
  ``Succeed``: the backend adds its own ``Timeout``, and ``Fail`` would turn failure into
  success); the one exception is ``Unshelve.``, the only way back to shelved goals;
* giving up: the identifiers ``admit``, ``give_up``, ``Admitted`` anywhere in the tactic
  (outside strings and comments). They are refused rather than run and answered
  ``ProofGivenUp`` because a partial ``admit`` would leave a search state that looks like
  progress but can never become a proof. (An admit hidden in a user's Ltac is still caught: by
  coqtop's "goals you gave up" message, and by ``Print Assumptions`` at verification);
* tactics that skip type checking (``exact_no_check`` and friends): coqtop would accept any
  term and a search would report proofs that only fail at ``Qed``; debugging tactics (``debug
  auto``, ``info_auto``), whose untagged traces make the printed state ambiguous;
* the ``par:`` selector (it starts worker processes), text containing coqtop's prompt markers
  (``<prompt>``) which would break the framing of replies, and control characters.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from prover.coq.sentences import SentenceSplitError, split_sentences

# Vernacular commands and control prefixes (Coq 8.16 reference manual, command index), by the
# first word of a sentence. Anything starting with one of these is not a tactic.
VERNACULAR: frozenset[str] = frozenset("""
Abort About Add Admit Admitted Arguments Attributes Axiom Axioms Back BackTo Bind Canonical Cd
Chapter Check Class Close CoFixpoint CoInductive Coercion Collection Combined Comments Compute
Conjecture Conjectures Constraint Context Corollary Create Cumulative Debug Declare Defined Definition
Delimit Derive Drop End Eval Example Existential Existing Export Extract Extraction Fact Fail
Fixpoint Focus From Function Functional Generalizable Global Goal Guarded Hint Hypotheses
Hypothesis Identity Implicit Import Include Inductive Infix Info Inline Inspect Instance
Instructions Lemma Let Load Local Locate Ltac Ltac2 Module Monomorphic Next Notation Number
NonCumulative Numeral Obligation Obligations Opaque Open Optimize Parameter Parameters Polymorphic Prenex
Primitive Print Private Program Proof Property Proposition Pwd Qed Quit Record Recursive Redirect
Register Remark Remove Require Reserved Reset Restart Save Scheme Scope Search SearchHead
SearchPattern SearchRewrite Section Separate Set Show Solve Strategy String Structure Sub SubClass
Succeed Tactic Test Theorem Time Timeout Transparent Type Typeclasses Undelimit Undo Unfocus
Unfocused Universe Universes Unset Variable Variables Variant
""".split())
ALLOWED_VERNACULAR: frozenset[str] = frozenset({"Unshelve"})
GIVE_UP: frozenset[str] = frozenset({"admit", "give_up", "Admitted", "Admit"})
# debugging tactics print untagged traces, which a proof state printed after them cannot be told from
_DEBUGGING = re.compile(r"(?<![\w'.])(?:debug\s+(?:auto|eauto|trivial)|info_auto|info_eauto|info_trivial)(?![\w'])")
# tactics that skip type checking: coqtop accepts anything, only the kernel at Qed would object
UNCHECKED: frozenset[str] = frozenset({"exact_no_check", "vm_cast_no_check", "native_cast_no_check",
                                       "change_no_check"})
MAX_FOCUSING = 8  # more focusing sentences than this in one step is not a plausible tactic

_SELECTOR = re.compile(
    r"(?:\d+(?:\s*-\s*\d+)?(?:\s*,\s*\d+(?:\s*-\s*\d+)?)*|all|!|par|\[\s*[A-Za-z_][\w']*\s*\])\s*:(?!=)\s*"
)
_FIRST_WORD = re.compile(r"#\[|[A-Za-z_][\w']*")
_IDENT = re.compile(r"(?<![\w'.])[A-Za-z_][\w']*")
_STRING = re.compile(r'"(?:[^"]|"")*"')
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class RefusedTactic(ValueError):
    """An untrusted tactic the policy does not let through; the message names input and reason."""


@dataclass(frozen=True)
class CheckedTactic:
    """A tactic the policy accepted: focusing sentences, then at most one tactic sentence."""

    focusing: tuple[str, ...]
    tactic: str | None  # the tactic sentence, comments removed; None for a focusing-only step

    @property
    def sentences(self) -> tuple[str, ...]:
        return self.focusing + (() if self.tactic is None else (self.tactic,))


@functools.lru_cache(maxsize=4096)  # a search tries the same tactic strings over and over
def check_tactic(text: str) -> CheckedTactic:
    """Accept ``text`` as one untrusted proof step, or raise :class:`RefusedTactic` saying why."""
    shown = text if len(text) <= 200 else text[:200] + "..."

    def refuse(why: str) -> RefusedTactic:
        return RefusedTactic(f"refused tactic {shown!r}: {why}")

    if _CONTROL.search(text):
        raise refuse("it contains control characters")
    if "<prompt>" in text or "</prompt>" in text:
        raise refuse("it contains coqtop's prompt markers")
    try:
        sentences = split_sentences(text, "<tactic>")
    except SentenceSplitError as exc:
        try:  # generated tactics often omit the final dot (CoqGym's data does): add it once
            sentences = split_sentences(text.rstrip() + ".", "<tactic>")
        except SentenceSplitError:
            raise refuse(f"not a complete Coq sentence ({exc.what})") from None
    if not sentences:
        raise refuse("it is empty")
    n = 0
    while n < len(sentences) and sentences[n].is_bullet:
        n += 1
    focusing, rest = sentences[:n], sentences[n:]
    if len(rest) > 1:
        raise refuse(f"it holds {len(rest)} tactic sentences; exactly one is accepted")
    if len(focusing) > MAX_FOCUSING:
        raise refuse(f"it holds {len(focusing)} bullets or braces")
    tactic = None
    if rest:
        tactic = rest[0].code
        _check_tactic_sentence(tactic, refuse)
    return CheckedTactic(tuple(s.code for s in focusing), tactic)


def _check_tactic_sentence(code: str, refuse) -> None:
    selector = _SELECTOR.match(code)
    if selector is not None and selector.group().startswith("par"):
        raise refuse("the par: selector starts worker processes")
    body = code[selector.end():] if selector else code
    first = _FIRST_WORD.match(body)
    if first is not None:
        word = first.group()
        if word == "#[":
            raise refuse("attributes belong to commands, not tactics")
        if word in VERNACULAR:
            raise refuse(f"{word!r} is a vernacular command, not a tactic")
        if word in ALLOWED_VERNACULAR and selector is not None:
            raise refuse(f"{word!r} takes no goal selector")
    words = {m.group() for m in _IDENT.finditer(_STRING.sub('""', code))}
    if words & GIVE_UP:
        raise refuse(f"{min(words & GIVE_UP)!r} gives up a goal instead of proving it")
    debugging = _DEBUGGING.search(_STRING.sub('""', code))
    if debugging is not None:
        raise refuse(f"{debugging.group()!r} prints debugging traces; use the tactic without them")
    if words & UNCHECKED:
        raise refuse(f"{min(words & UNCHECKED)!r} skips type checking (only Qed would catch a bad term)")
