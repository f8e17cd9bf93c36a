"""What untrusted Coq text may not reach: programs, files, external provers, and options beyond its file.

One grammar for every sentence a user or a model writes, shared by the tactic policy
(:func:`prover.coq.policy.check_tactic`) and the prelude check
(:func:`prover.coq.context.check_prelude`), so that a form refused in one is refused in the other.
It works on :func:`prover.coq.sentences.tokens`: words inside strings and comments are no words,
and a word is found wherever it stands (after a selector, inside ``try``, ``solve [...]``,
``ltac:(...)``, an ``Ltac`` body or a ``Hint Extern``). :func:`refusal` says why a sentence is
refused, or nothing:

* CoqHammer's tactics that run a program or write files named by an option or an argument
  (:data:`PROGRAM_TACTICS`; from the ``TACTIC EXTEND`` entries of CoqHammer 1.3.2's plugin):
  ``hammer_hook "p" "x$(cmd)"`` hands its strings to ``Sys.command``, ``predict`` runs the
  program named by the ``Hammer PredictPath`` option, ``hammer_dump`` writes the file it names,
  ``hammer_features``/``hammer_transl`` write the translation files, ``ptimeout`` forks.
* The native compiler: any word ``native_...`` and the cast ``<<:`` start ``ocamlopt``.
* ``hammer`` (:data:`ATP_TACTICS`, which calls external provers) anywhere but as a step of its
  own: ``hammer.`` or ``N: hammer.`` / ``[g]: hammer.`` / ``!: hammer.`` (one goal), the forms
  that :class:`prover.coq.hammer.HammerSession` runs under ``hammer_timeout`` once per state and
  rewrites to the reconstruction tactic it prints (:func:`atp_step`). Nested (``try hammer``,
  ``idtac; hammer``, ``all: hammer``) it would run under the ordinary limit, again at every
  replay, and stay in the proof; such a tactic is refused, not run.
* Options, by allow-list. ``Set``/``Unset`` may change only the options of :data:`SAFE_OPTIONS`,
  with the listed values, in their plain form: the ``Export``, ``Local`` and ``Global`` prefixes
  and the ``#[...]`` attributes on ``Set``/``Unset`` are refused (``Export Set`` let any option
  through a check that read ``Export`` as a library import). Options outside the list include
  CoqHammer's (``Hammer PredictPath`` names the program ``predict`` runs) and the kernel's
  checks (``Guard Checking``).
* Loading, by grammar: ``[From L] Require [Import|Export] M...`` and ``Import``/``Export M...``
  name libraries and modules only (qualified names, import filters ``M(x, y)``); ``From L Extra
  Dependency "file"`` binds a file of the file system and is refused, as is any string there.

What a prelude or a tactic may otherwise contain is decided by their own allow-lists (a tactic
is never a command; a prelude holds only the listed commands).
"""

from __future__ import annotations

import re

from prover.coq.sentences import SELECTOR, Token, tokens

#: CoqHammer 1.3.2's plugin tactics that run programs or write files (not ``hammer``, see below)
PROGRAM_TACTICS: frozenset[str] = frozenset({
    "hammer_hook", "predict", "hammer_features", "hammer_transl", "hammer_dump", "ptimeout"})
#: tactics that call external provers; only a step of their own (:func:`atp_step`) may run them
ATP_TACTICS: frozenset[str] = frozenset({"hammer"})
#: ``Set``/``Unset`` options untrusted text may change: parsing, elaboration and printing
#: defaults, none a kernel check or a path. ``None``: a flag (no value); otherwise the values
#: ``Set`` may give (``Default Goal Selector "all"`` would make a bare ``hammer.`` run on every goal)
SAFE_OPTIONS: dict[str, frozenset[str] | None] = {
    "Implicit Arguments": None, "Strict Implicit": None, "Contextual Implicit": None,
    "Maximal Implicit Insertion": None, "Reversible Pattern Implicit": None, "Asymmetric Patterns": None,
    "Universe Polymorphism": None, "Primitive Projections": None, "Printing Implicit": None,
    "Printing All": None, "Printing Notations": None,
    "Default Goal Selector": frozenset({'"!"', '"1"'}),
    "Bullet Behavior": frozenset({'"None"', '"Strict Subproofs"'}),
}
_PREFIXES = frozenset({"Export", "Local", "Global"})
_LOADS = frozenset({"From", "Require", "Import", "Export"})
_IMPORT_SYMBOLS = frozenset({"(", ")", ",", "-", "-(", ")."})  # import filters: ``Import M(x, y).``
_KEYWORDS = frozenset({"Set", "Unset", "Prop", "Type", "SProp", "Extra", "Dependency", "Require", "From"})


def refusal(code: str) -> str | None:
    """Why the sentence ``code`` (a tactic or a vernacular sentence) is refused by this grammar
    (module docstring), as a phrase to follow its name; None when it passes. Raises
    :class:`prover.coq.sentences.SentenceSplitError` for an unterminated string."""
    toks = tokens(code)
    words = [t.text for t in toks if t.kind == "ident"]
    program = next((w for w in words if w in PROGRAM_TACTICS), None)
    if program is not None:
        return (f"{program!r} runs a program or writes files named by its arguments or options "
                f"(a CoqHammer tactic); it is never run")
    native = next((w for w in words if w.startswith("native_")), None)
    if native is not None or any("<<:" in t.text for t in toks if t.kind == "symbol"):
        return f"{native or '<<:'!r} starts the native compiler (ocamlopt processes)"
    atp = next((w for w in words if w in ATP_TACTICS), None)
    if atp is not None and not atp_step(code):
        return (f"{atp!r} calls external provers; it runs only as a step of its own ('{atp}.' or 'N: {atp}.'), "
                f"once per state under its own time limit, and is replaced by its reconstruction tactic")
    return _command_refusal(toks)


def calls_atp(tactic: str) -> bool:
    """Whether ``tactic`` calls an external prover anywhere (a word of :data:`ATP_TACTICS`)."""
    return any(t.kind == "ident" and t.text in ATP_TACTICS for t in tokens(tactic))


def atp_step(tactic: str) -> bool:
    """Whether ``tactic`` is exactly an ATP tactic on one goal: ``hammer.``, ``N: hammer.``,
    ``[g]: hammer.`` or ``!: hammer.``: the forms whose printed reconstruction replaces them."""
    toks = tokens(tactic)
    if len(toks) < 2 or toks[-1].text != "." or toks[-2].kind != "ident" or toks[-2].text not in ATP_TACTICS:
        return False
    selector = "".join(t.text for t in toks[:-2])
    return selector in ("", "!:") or (selector.endswith(":") and _one_goal(selector[:-1]))


def _one_goal(selector: str) -> bool:
    """Whether a goal selector (without its colon) selects one goal by number or by name."""
    return re.fullmatch(SELECTOR, selector + ":") is not None and (
        selector.isdigit() or re.fullmatch(r"\[[^\W\d][\w']*\]", selector) is not None)


def _command_refusal(toks: list[Token]) -> str | None:
    """The option and loading rules, for a sentence whose command is ``Set``/``Unset`` or a load."""
    head, rest = _head(toks)
    command = rest[0].text if rest and rest[0].kind == "ident" else ""
    if command in ("Set", "Unset"):
        if head:
            return (f"{' '.join(head + [command])!r} changes an option beyond a plain {command}; only "
                    f"'{command} <option>' of the listed options is allowed")
        return _option_refusal(command, rest[1:])
    if command in _LOADS:
        return _load_refusal(rest)
    return None


def _head(toks: list[Token]) -> tuple[list[str], list[Token]]:
    """The attributes ``#[...]`` and the prefixes ``Export``/``Local``/``Global`` of a sentence,
    as written, and the tokens after them."""
    head: list[str] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "symbol" and t.text.startswith("#["):
            end = next((j for j in range(i, len(toks)) if toks[j].kind == "symbol" and "]" in toks[j].text), None)
            if end is None:
                break
            head.append("".join(x.text for x in toks[i:end + 1]).rstrip())
            i = end + 1
        elif t.kind == "ident" and t.text in _PREFIXES:
            head.append(t.text)
            i += 1
        else:
            break
    # ``Export M.`` is a load, not a prefix: Export prefixes only Set and Unset
    if head and head[-1] == "Export" and not (i < len(toks) and toks[i].text in ("Set", "Unset")):
        return head[:-1], toks[i - 1:]
    return head, toks[i:]


def _option_refusal(command: str, toks: list[Token]) -> str | None:
    """``Set``/``Unset`` (``command``) of the option named by the words of ``toks``, then a value."""
    name_toks = []
    for t in toks:
        if t.kind != "ident":
            break
        name_toks.append(t.text)
    option = " ".join(name_toks)
    value = [t.text for t in toks[len(name_toks):]]
    if value and value[-1] == ".":
        value = value[:-1]
    if option not in SAFE_OPTIONS:
        return f"option {option!r} may not be changed (allowed: {', '.join(SAFE_OPTIONS)})"
    allowed = SAFE_OPTIONS[option]
    shown = " ".join(value)
    if value and (command == "Unset" or allowed is None or len(value) != 1 or value[0] not in allowed):
        return f"value {shown!r} of option {option!r} is not allowed ({_values(command, allowed)})"
    if not value and command == "Set" and allowed is not None:
        return f"option {option!r} needs one of the values {', '.join(sorted(allowed))}"
    return None


def _values(command: str, allowed: frozenset[str] | None) -> str:
    if command == "Unset" or allowed is None:
        return f"'{command} <option>.' takes no value"
    return f"allowed: {', '.join(sorted(allowed))}"


def _load_refusal(toks: list[Token]) -> str | None:
    """``[From L] Require [Import|Export] names`` or ``Import|Export names``: names only."""
    words = [t.text for t in toks]
    i = 0
    if words[:1] == ["From"]:
        if len(toks) < 2 or toks[1].kind != "ident":
            return _not_a_load(words[1] if len(toks) > 1 else "From")
        if len(toks) < 3 or words[2] != "Require":
            return _not_a_load(f"From {words[1]} {words[2] if len(toks) > 2 else ''}".rstrip())
        i = 2
    if words[i:i + 1] == ["Require"]:
        i += 1
        if words[i:i + 1] in (["Import"], ["Export"]):
            i += 1
    elif words[i:i + 1] in (["Import"], ["Export"]):
        i += 1
    names = toks[i:]
    if names and names[-1].text in (".", ")."):
        names = names[:-1]
    bad = next((t.text for t in names if (t.kind == "ident" and t.text in _KEYWORDS) or t.kind in ("string", "number")
                or (t.kind == "symbol" and t.text not in _IMPORT_SYMBOLS)), None)
    if bad is not None:
        return _not_a_load(bad)
    if not any(t.kind == "ident" for t in names):
        return _not_a_load(" ".join(words))
    return None


def _not_a_load(what: str) -> str:
    return (f"{what!r} is not part of a library load: only '[From <library>] Require [Import|Export] <modules>' "
            f"and 'Import|Export <modules>' are allowed (no files, no strings, no options)")
