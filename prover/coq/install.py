"""Where the installed Coq is: its version, its standard library sources, its installed libraries
(and the Debian packages that provide others), and this project's cache.

Every job that reads the stdlib (the index, the corpus, the tracer) finds it through here, so one
``coqc`` on PATH decides the version and the sources, and the cache is kept per Coq version.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from search_tree.cache import cache_root


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


def user_contrib() -> Path:
    """Where installed libraries live: ``$(coqc -where)/user-contrib``."""
    return stdlib_root().parent / "user-contrib"


def installed_libraries(contrib: Path | None = None) -> list[str]:
    """The names of the libraries installed in ``contrib`` (default :func:`user_contrib`), as
    ``coq-lib:NAME`` takes them: every directory holding compiled Coq files, and the parts of those
    that hold none themselves (``mathcomp.ssreflect``)."""
    contrib = user_contrib() if contrib is None else contrib
    if not contrib.is_dir():
        return []
    names: list[str] = []
    for top in sorted(p for p in contrib.iterdir() if p.is_dir()):
        if any(top.glob("*.vo")):
            names.append(top.name)
        else:
            names.extend(f"{top.name}.{part.name}" for part in sorted(top.iterdir())
                         if part.is_dir() and any(part.rglob("*.vo")))
    return names


@functools.lru_cache(maxsize=1)
def installed_modules() -> dict[str, str]:
    """Logical module name -> path (under :func:`user_contrib`) of every compiled file of the
    installed libraries (``mathcomp.ssreflect.seq`` -> ``mathcomp/ssreflect/seq.vo``): what a
    project's ``Require`` of a library resolves against. Coq binds ``user-contrib`` so that a
    directory's path is its logical name, which is why no library's own flags are needed here."""
    contrib = user_contrib()
    if not contrib.is_dir():
        return {}
    found = (p.relative_to(contrib) for p in contrib.rglob("*.vo"))
    return {".".join(p.with_suffix("").parts): p.as_posix() for p in found}


def _folded(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@functools.lru_cache(maxsize=1)
def debian_coq_packages() -> tuple[str, ...]:
    """Debian's Coq library packages (``libcoq-*``, the stdlib's and the OCaml runtime's excepted),
    as the apt cache lists them; empty where there is no apt."""
    try:
        out = subprocess.run(["apt-cache", "pkgnames", "libcoq-"], capture_output=True, text=True, check=False).stdout
    except FileNotFoundError:
        return ()
    return tuple(sorted(p for p in out.split() if p.startswith("libcoq-") and p != "libcoq-stdlib"
                        and not p.startswith("libcoq-core")))


def debian_package(name: str) -> str | None:
    """The Debian package that installs the library ``name`` (``RelationAlgebra`` ->
    ``libcoq-relation-algebra``, ``mathcomp.algebra`` -> ``libcoq-mathcomp-algebra``): Debian names
    them after the library, lower-case with dashes, so the two match once case and punctuation are
    dropped. None when no package matches."""
    folded = _folded(name)
    return next((p for p in debian_coq_packages() if _folded(p[len("libcoq-"):]) == folded), None)


def not_installed(name: str, contrib: Path | None = None) -> str:
    """What to tell a user who names the library ``name`` that ``contrib`` (default
    :func:`user_contrib`) does not hold: the installed library it differs from only by case or
    punctuation (``aac_tactics``), else the Debian package that provides it, if one does; then the
    installed libraries. One clause for every error that names a missing library, so that each
    says how to get it."""
    installed = installed_libraries(contrib)
    spelled = next((n for n in installed if _folded(n) == _folded(name)), None)
    package = debian_package(name)
    offer = (f"it is installed as {spelled}" if spelled else f"`apt-get install {package}` provides it" if package
             else "no Debian package provides it")
    return f"{offer}; installed: {', '.join(installed) or 'none'}"


def _coqc(arg: str) -> str:
    try:
        return subprocess.run(["coqc", arg], capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        raise RuntimeError("coqc is not on PATH: install Coq (`apt-get install -y coq`)") from None


def cache_dir() -> Path:
    """Where indexes and traced data live: ``$DOJO_PROVER_CACHE`` or ``~/.cache/dojo-prover``, per Coq version."""
    base = cache_root()
    return base / f"coq-{coq_version()}"

