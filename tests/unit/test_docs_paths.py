"""Every source path and dotted name that the docs write in code spans exists in the tree.

The docs point at docstrings instead of repeating them, so a pointer that dangles after a move or
rename is the way they go wrong; this check reads them as a newcomer would follow them. It looks
at code (inline spans and fenced blocks) of ``README.md`` and ``docs/*.md`` for

* paths with a slash (``prover/coq/env.py``, ``prover/run/``): they must exist from the repository
  root (paths with placeholders, ``NAME``, ``<out>`` or ``~``, are not paths of the tree), and
  a glob (``tests/unit/test_lean_*.py``) must match something;
* dotted names under a package of the library (``prover.registry.ENVIRONMENTS``,
  ``prover.synthetic:SyntheticGenerator``): the longest prefix that is a module must exist, and the
  next name must be defined at its top level (and, for a class, the name after it in the class).
  In a ``python`` block only the imports count (``prover.search(...)`` there is a variable's
  method), and in other blocks (shell commands) only the paths.

It parses the source (no import), so it runs in milliseconds and needs no backend.
"""

from __future__ import annotations

import ast
import functools
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("search_tree", "generator", "retrieval", "prover", "benchmarks")
DOCS = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))

_FENCED = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`([^`]+)`")
_PATH = re.compile(r"(?<![\w./~<$*-])((?:[\w.*-]+/)+[\w.*-]*)")
_DOTTED = re.compile(rf"(?<![\w./-])((?:{'|'.join(PACKAGES)})(?:\.\w+)*(?::[\w.]+)?)")
_PLACEHOLDER = re.compile(r"[A-Z]{2,}|<|~|\{")


def code_of(markdown: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of every fenced block (kind: its language) and inline span (kind ``inline``)."""
    blocks = [(lang.strip() or "text", text) for lang, text in _FENCED.findall(markdown)]
    return blocks + [("inline", span) for span in _INLINE.findall(_FENCED.sub("", markdown))]


def _imported(code: str) -> list[str]:
    """The dotted names a Python block imports (``from a.b import c`` gives ``a.b.c``)."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [f"{node.module}.{a.name}" for a in node.names]
    return [name for name in out if name.split(".")[0] in PACKAGES]


@functools.cache
def _names(path: pathlib.Path) -> dict[str, ast.AST | None]:
    """Top-level names of a module (classes map to their node, to look one level further)."""
    tree = ast.parse(path.read_text())
    names: dict[str, ast.AST | None] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node if isinstance(node, ast.ClassDef) else None
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update({n.id: None for n in ast.walk(target) if isinstance(n, ast.Name)})
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update({(a.asname or a.name).split(".")[0]: None for a in node.names})
    if "__getattr__" in names:  # lazy exports: any string the module names
        names.update({n.value: None for n in ast.walk(tree)
                      if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier()})
    return names


def _module_file(parts: list[str]) -> pathlib.Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def dotted_problem(name: str) -> str | None:
    """Why ``name`` (``pkg.module.attr`` or ``pkg.module:attr``) names nothing, or None if it exists."""
    module, _, attr = name.partition(":")
    parts = module.split(".")
    for cut in range(len(parts), 0, -1):
        path = _module_file(parts[:cut])
        if path is not None:
            break
    else:
        return f"no module {parts[0]}"
    if ":" in name and cut < len(parts):
        return f"no module {module}"
    rest = parts[cut:] + (attr.split(".") if attr else [])
    if not rest:
        return None
    names = _names(path)
    if rest[0] not in names:
        return f"{'.'.join(parts[:cut])} has no module or name {rest[0]}"
    node = names[rest[0]]
    if len(rest) > 1 and isinstance(node, ast.ClassDef):
        members = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        members |= {t.id for n in node.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        if rest[1] not in members:
            return f"class {rest[0]} has no {rest[1]}"
    return None


def problems(markdown: str) -> list[str]:
    """Every path or dotted name in the code of ``markdown`` that the tree lacks, with the reason."""
    found = []
    for kind, code in code_of(markdown):
        for path in _PATH.findall(code):
            path = path.rstrip(".")
            if _PLACEHOLDER.search(path) or path.split("/")[0] not in (*PACKAGES, "tests", "docs", "scripts"):
                continue
            if not (any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()):
                found.append(f"{path}: no such file or directory")
        try:
            names = _imported(code) if kind == "python" else _DOTTED.findall(code) if kind == "inline" else []
        except SyntaxError as exc:
            found.append(f"python block {code.splitlines()[0]!r}...: does not parse ({exc.msg})")
            continue
        for name in names:
            name = name.rstrip(".")
            problem = dotted_problem(name)
            if problem:
                found.append(f"{name}: {problem}")
    return sorted(set(found))


def test_every_path_and_name_in_the_docs_exists():
    """Fails if a doc names a moved or misspelt module, file or attribute (e.g. the removed
    ``retrieval/query_text.py`` if it were deleted, or ``prover.run.distributed`` after the move)."""
    bad = {doc: problems((ROOT / doc).read_text()) for doc in DOCS}
    assert {doc: p for doc, p in bad.items() if p} == {}


def test_the_check_catches_made_up_paths_and_names():
    """Fails if the checker stops reporting a made-up path, module, attribute or class member
    (checked on a made-up page, since the real docs are meant to pass)."""
    page = ("See `prover/coq/nowhere.py` and `prover/made_up/`, `prover.nowhere`, "
            "`prover.registry.NO_TABLE`, `prover.synthetic:NoClass` and "
            "`search_tree.registry.Registry.no_method`; but `prover/coq/env.py`, "
            "`prover.registry.ENVIRONMENTS`, `prover.proof_search.DistributedProver`, "
            "`benchmarks/results/NAME.md`, `tests/unit/test_lean_*.py` and\n"
            "```bash\npython benchmarks/mcts_vs_best_first.py  # prover.search is prose here\n```\n"
            "```python\nfrom prover.nowhere import x\nprover.search(env, thm)\n```\n"
            "are fine, but not `tests/test_lean_*.py`.")
    assert problems(page) == [
        "prover.nowhere.x: prover has no module or name nowhere",
        "prover.nowhere: prover has no module or name nowhere",
        "prover.registry.NO_TABLE: prover.registry has no module or name NO_TABLE",
        "prover.synthetic:NoClass: prover.synthetic has no module or name NoClass",
        "prover/coq/nowhere.py: no such file or directory",
        "prover/made_up/: no such file or directory",
        "search_tree.registry.Registry.no_method: class Registry has no no_method",
        "tests/test_lean_*.py: no such file or directory",
    ]
