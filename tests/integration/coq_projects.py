"""Small Coq projects written by the tests, a fingerprint of a directory tree to compare, and
``fill-admitted``'s Markdown table as a reader sees it."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def as_read(markdown: str) -> str:
    """``markdown`` with the backslash escapes of :func:`prover.views.safe_text.md_text` undone
    (``x\\|y`` read as ``x|y``), so a test can match a table's cells as written."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def make_project(root: Path, files: dict[str, str], flags: str = "-Q theories P", listed: bool = True) -> Path:
    """A project at ``root``: ``files`` (paths relative to it) and a ``_CoqProject`` listing them."""
    root.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / "_CoqProject").write_text(flags + "\n" + ("".join(f"{p}\n" for p in files) if listed else ""))
    return root


def tree_state(root: Path) -> dict[str, tuple]:
    """Everything observable about a tree: per entry its kind, mode, mtime and content (or link target)."""
    state: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            if p.is_symlink():
                what = ("link", os.readlink(p))
            elif p.is_dir():
                what = ("dir",)
            else:
                what = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
            state[str(p.relative_to(root))] = (*what, st.st_mode, st.st_mtime_ns)
    return state
