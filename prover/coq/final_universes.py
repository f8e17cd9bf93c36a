"""Whether the universe relations a proof adds are consistent with the development's final universe graph.

The final check compiles the theorem's file up to its statement, so it cannot see what the rest
of the development imposes on universes (:mod:`prover.coq.universes`). :func:`universe_refusal`
takes the relations a proof adds among the universes before its statement and its own
(:attr:`prover.coq.universes.ProofUniverses.added`; none for most proofs, which are accepted at
once, at no cost) and accepts them only where the development's final graph plus them has no
cycle through a strict relation: then the development, with the proof in place of the declared
one, still has a model of its universes. The final graph is ``Print Universes`` in one coqc run
that loads every compiled module of the theorem's development (:func:`development_modules`: the
project's, the stdlib's, the installed library's), built on first need and cached on disk under
the prover cache, keyed by those files' paths, sizes and mtimes (:func:`development_graph`).

The check's universes are named in the final graph thus:

* a universe of another library keeps its name (Coq prints a named one by the shortest suffix of
  its path that names it where it prints, so the names are matched by suffix, and only where one
  universe of the final graph can be it: :func:`prover.coq.universes.resolve`);
* the statement's own universes, and those of the section's variables the declared lemma keeps,
  are the declared lemma's: a second small run prints its type (``About`` its full name, every
  universe shown), matched with the proved constant's type universe by universe
  (:func:`prover.coq.universes.correspondence`; a kept variable its type prints ``_`` is named by
  ``About``'s ``Arguments`` line, and a constant of the statement's section is compared with the
  closed section's application of it to the variables it abstracts);
* any other anonymous universe of the theorem's own file (``P.A.7``: an earlier declaration's,
  numbered by a counter that need not be the same as in the file's own compilation) is not
  assumed to be the final graph's universe of that name: a relation the proof adds on it is
  refused.

A polymorphic theorem is used at every instance its declared constraints allow, so a relation
the proof adds on its bound universes is refused whatever the development says. An ad-hoc
theorem has no development after it: the check file is all of it, and coqc accepted it. Whatever
cannot be read or matched refuses the proof, with a one-line reason.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import subprocess
import time
from pathlib import Path

from search_tree.cache import cache_root
from search_tree.safe_files import UnsafePath, make_dir, read_json, read_regular, replace_file

from .assumptions import last_error
from .context import ADHOC_MODULE, CoqContext
from .install import coq_version, installed_modules, stdlib_root, user_contrib
from .provenance import bindings
from .reopened import compiled_module, open_blocks
from .sandbox import confined, sandbox_dir, sandbox_env
from .universes import (REPORTS, Graph, Relation, UniverseError, argument_names, constant, correspondence, graph, inconsistent,
                        proof_universes, relations, resolve, shown_universes, written)

#: how the message of a proof refused for the universe relations it adds begins
UNIVERSES_REFUSED = "not proved (universes)"

_QUALID = re.compile(r"[A-Za-z_][\w']*(\.[A-Za-z_][\w']*)*")
_PRINTING = "Set Printing Width 1000000.\nSet Printing All.\nSet Printing Universes.\n"


def universe_refusal(context: CoqContext, report: Path, name: str, deadline: float) -> str | None:
    """Why the proof checked as ``name`` is not proved for the universe relations it adds, or None
    (module docstring). ``report`` is the check's assumptions report without ``.out``: the
    universe reports lie beside it (``<report>_universes_<suffix>.out``)."""
    texts = []
    for suffix in REPORTS:
        try:
            data = read_regular(report.with_name(f"{report.name}_universes_{suffix}.out"))
        except UnsafePath:
            data = None
        if data is None:
            return f"{UNIVERSES_REFUSED}: coqc exited 0 but wrote no universe report ({suffix})"
        texts.append(data.decode(errors="replace"))
    try:
        before, statement, shown, after, about = texts
        found = proof_universes(before, statement, shown, after, about, name)
    except UniverseError as exc:
        return f"{UNIVERSES_REFUSED}: its universe constraints cannot be read ({exc})"
    if not found.added or context.module == ADHOC_MODULE:
        return None  # an ad-hoc statement's prelude is its whole development, and coqc accepted it
    polymorphic = [r for r in found.added if r[0] in found.bound or r[1] in found.bound]
    if polymorphic:
        return (f"{UNIVERSES_REFUSED}: the proof adds {_listed(polymorphic)} on the universes of the polymorphic "
                f"statement, which its declared constraints do not imply (it is used at every instance they allow)")
    try:
        development = development_graph(context, deadline)
        # the declared lemma is read only where a relation is on a universe its type shows: one
        # between other libraries' universes alone (``ring``'s and ``list``'s) needs no name of it,
        # and a functor's body, whose lemma ``About`` cannot name, is compared all the same
        touched = {universe for relation in found.added for universe in relation[:2]}
        names = correspondence(found.proved, found.hypotheses, *declared_type(context, deadline)) \
            if touched & shown_universes([found.proved, *found.hypotheses]) else {}
    except UniverseError as exc:
        return f"{UNIVERSES_REFUSED}: the universe relations it adds ({_listed(found.added)}) cannot be compared " \
               f"with the development ({exc})"
    own = re.compile(rf"{re.escape(context.module)}\.\d+")
    printed = list(development)
    mapped: list[Relation] = []
    for lower, upper, strict in found.added:
        ends = []
        for universe in (lower, upper):
            if universe in names:
                target = resolve(names[universe], printed)
            elif own.fullmatch(universe):
                return (f"{UNIVERSES_REFUSED}: the proof adds the universe relation {written((lower, upper, strict))} on "
                        f"an earlier universe of its file ({universe}), which cannot be compared with the development")
            else:
                target = resolve(universe, printed)
            if target is None:
                return (f"{UNIVERSES_REFUSED}: the proof adds the universe relation {written((lower, upper, strict))}, "
                        f"and {universe} cannot be found in the development's universe graph")
            ends.append(target)
        mapped.append((ends[0], ends[1], strict))
    bad = inconsistent(development, mapped)
    if bad:
        return (f"{UNIVERSES_REFUSED}: the proof adds {_listed(bad)}, which the development's universe graph "
                f"contradicts (its later text imposes the opposite)")
    return None


def _listed(found: list[Relation] | tuple[Relation, ...]) -> str:
    return ", ".join(written(r) for r in found[:5]) + (" ..." if len(found) > 5 else "")


def original_module(context: CoqContext) -> str:
    """The compiled module that holds the declared theorem (a reopened context's stand-in's own)."""
    return compiled_module(context) or context.module


def development_modules(context: CoqContext) -> dict[str, Path]:
    """Logical name to ``.vo`` of every compiled module of the theorem's development: a stdlib
    theorem's, the stdlib; a project's, every ``.vo`` under its ``-Q``/``-R`` bindings; an
    installed library's, that library's. A superset of the modules that may load the theorem's
    is as sound as those alone: loading more only adds their constraints, which hold anyway."""
    module = original_module(context)
    found: dict[str, Path] = {}
    if module.startswith("Coq."):
        root = stdlib_root()
        found = {"Coq." + _dotted(vo.relative_to(root)): vo for vo in root.rglob("*.vo")}
    else:
        for flag, directory, logical in bindings(context.load_path):
            if flag == "-I" or not directory.is_dir():
                continue
            for vo in directory.rglob("*.vo"):
                dotted = _dotted(vo.relative_to(directory))
                found.setdefault(f"{logical}.{dotted}" if logical else dotted, vo)
        if module not in found:
            library = module.split(".")[0]
            found = {name: user_contrib() / path for name, path in installed_modules().items()
                     if name.split(".")[0] == library}
    if module not in found:
        raise UniverseError(f"the compiled {module} is not among its development's compiled modules")
    odd = sorted(name for name in found if not _QUALID.fullmatch(name))
    if odd:
        raise UniverseError(f"compiled modules that cannot be loaded by name: {', '.join(odd[:3])}")
    return found


def _dotted(relative: Path) -> str:
    return ".".join(relative.with_suffix("").parts)


def development_graph(context: CoqContext, deadline: float) -> Graph:
    """The development's final universe graph (module docstring): read from the cache when its key
    (the compiled files' paths, sizes and mtimes, the project's options and the context's
    additions, which the check loads too) is there, else printed by one coqc run and cached."""
    modules = development_modules(context)
    try:  # a dangling link, or a .vo a concurrent build removed: refused, in the check's one line
        stamps = sorted((name, str(path), *_stamp(path)) for name, path in modules.items())
    except OSError as exc:
        raise UniverseError(f"a compiled module of the development cannot be read ({exc})") from None
    key_text = json.dumps([coq_version(), stamps, list(context.load_path), list(context.options),
                           list(context.additions)])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:32]
    return _cached_graph(key, tuple(sorted(modules)), context.load_path, context.options, context.additions, deadline)


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def cache_path(key: str) -> Path:
    """Where the graph of key ``key`` is cached: ``<cache>/universes/<Coq version>/<key>.json``."""
    return cache_root() / "universes" / coq_version() / f"{key}.json"


@functools.lru_cache(maxsize=8)
def _memo(key: str) -> Graph | None:
    """The cached graph of ``key`` read from disk once per process (None: not cached or unreadable;
    the file is read as untrusted, and one that is not the list of relations written is ignored)."""
    path = cache_path(key)
    try:  # the directories on the way, as when it was written: no link planted among them
        make_dir(path.parent, cache_root())
        data = read_json(path)
    except (UnsafePath, ValueError, OSError):
        return None
    if not isinstance(data, list) or not all(
            isinstance(r, list) and len(r) == 3 and isinstance(r[0], str) and isinstance(r[1], str)
            and isinstance(r[2], bool) for r in data):
        return None
    return graph((r[0], r[1], r[2]) for r in data)


def _cached_graph(key: str, modules: tuple[str, ...], load_path: tuple[str, ...], options: tuple[str, ...],
                  additions: tuple[str, ...], deadline: float) -> Graph:
    cached = _memo(key)
    if cached is not None:
        return cached
    source = "".join(f"Require {name}.\n" for name in modules) + "".join(s + "\n" for s in additions)
    text = _print(source + "Set Printing Width 1000000.\n", "Print Universes.", load_path, options, deadline,
                  "the development's universe graph")
    found = relations(text)
    if not found:
        raise UniverseError("the development's universe graph is empty")
    path = cache_path(key)
    try:
        cache_root().mkdir(parents=True, exist_ok=True)
        make_dir(path.parent, cache_root())
        replace_file(path, json.dumps([list(r) for r in found]).encode(), fsync=False)
    except OSError:
        pass  # not cached: built again next time
    _memo.cache_clear()
    return graph(found)


def declared_type(context: CoqContext, deadline: float) -> tuple[str, tuple[str, ...]]:
    """The declared theorem's type in its compiled module, every universe shown (``About`` its full
    name in a run that loads only that module): for a polymorphic one, with its bound universes;
    and its argument names (``About``'s ``Arguments`` line, which names the binders its type
    prints as ``_``)."""
    qualified = declared_name(context)
    text = _print(f"Require {original_module(context)}.\n{_PRINTING}", f"About {qualified}.", context.load_path,
                  context.options, deadline, f"the declared {qualified}")
    return constant(text, qualified)[0], argument_names(text, qualified)


def declared_name(context: CoqContext) -> str:
    """The declared theorem's full name: its module, the modules open at it (not the sections, which
    do not name what they hold), its name."""
    modules = [name for kind, name in open_blocks(context) if kind == "module"]
    return ".".join([original_module(context), *modules, context.name])


def _print(source: str, command: str, load_path: tuple[str, ...], options: tuple[str, ...], deadline: float,
           what: str) -> str:
    """What ``command`` prints after ``source``, by coqc in a fresh sandbox (the project's files run
    code as they load: :func:`prover.coq.sandbox.confined`); :class:`UniverseError` if coqc fails,
    runs past ``deadline`` or prints nothing."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise UniverseError(f"no time left to print {what}")
    with sandbox_dir("universes") as box:
        out = box / "printed"
        (box / "DojoUniverses.v").write_text(f'{source}Redirect "{out}" {command}\n')
        try:
            done = subprocess.run(confined(["coqc", "-q", *load_path, *options, "DojoUniverses.v"], box), cwd=box,
                                  env=sandbox_env(box), capture_output=True, text=True, timeout=left, check=False)
        except subprocess.TimeoutExpired:
            raise UniverseError(f"printing {what} timed out (verification timeout)") from None
        if done.returncode != 0:
            raise UniverseError(f"coqc could not print {what}: {last_error(done.stderr + done.stdout)}")
        try:
            data = read_regular(out.with_name(out.name + ".out"))
        except UnsafePath:
            data = None
    if not data:
        raise UniverseError(f"coqc printed nothing for {what}")
    return data.decode(errors="replace")
