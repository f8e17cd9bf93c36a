"""The one reader of traced files: every format it takes, and a parse shared while the file is unchanged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generator.traced import load_theorems
from retrieval.traced_file import TracedFormatError, load_traced

THEOREM = {"full_name": "t", "file_path": "A.v", "traced_tactics": [{"tactic": "auto."}]}


def test_formats(tmp_path: Path) -> None:
    listed, lines, single = tmp_path / "a.json", tmp_path / "b.jsonl", tmp_path / "c.json"
    listed.write_text(json.dumps([THEOREM, {"no": "tactics"}]))
    lines.write_text(json.dumps(THEOREM) + "\n\n" + json.dumps({**THEOREM, "full_name": "u"}) + "\n")
    single.write_text(json.dumps({"theorems": [THEOREM]}))
    assert load_traced(listed) == [THEOREM, {"no": "tactics"}]
    assert [t["full_name"] for t in load_traced(lines)] == ["t", "u"]
    # load_theorems keeps the theorems with tactics of a JSON file, every record of JSON Lines,
    # and opens a {"theorems": [...]} object
    assert load_theorems(listed) == [THEOREM]
    assert [t["full_name"] for t in load_theorems(lines)] == ["t", "u"]
    assert load_theorems(single) == [THEOREM]
    assert [t["full_name"] for t in load_theorems(tmp_path)] == ["t", "t", "u", "t"]


def test_parse_shared_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "train.json"
    path.write_text(json.dumps([THEOREM]))
    first, second = load_traced(path), load_traced(str(path))
    assert first is not second  # a new list for each caller ...
    assert first[0] is second[0]  # ... of the same parsed theorems
    assert load_theorems(path)[0] is first[0]

    stat = path.stat()
    path.write_text(json.dumps([{**THEOREM, "full_name": "changed"}]))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert load_traced(path)[0]["full_name"] == "changed"


def test_bad_input_is_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("[{\"full_name\": ")
    with pytest.raises(TracedFormatError, match="broken.json:1: neither a JSON list nor JSON lines"):
        load_traced(broken)
    with pytest.raises(TracedFormatError, match="missing.json: no such traced file"):  # one line, not a traceback
        load_traced(tmp_path / "missing.json")
