"""No module imports one of a higher layer (``tests/import_layers.py`` holds the order and the check).

The first test runs the check over the repository; the others build small package trees with one
upward reference of each kind and require the check to report exactly that one, so the first
test can fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from import_layers import LAYERS, Layer, Violation, check, layer_of, upward_imports

ROOT = Path(__file__).resolve().parents[2]

def test_no_module_of_the_repository_imports_a_higher_layer():
    """Fails if a module imports, inside a function or not, or names by registry string a module
    of a higher layer; if a module is in no layer; or if a row of LAYERS names nothing."""
    problems = check(ROOT)
    assert not problems, "layering broken (see tests/import_layers.py):\n" + "\n".join(problems)


LOW_HIGH = (Layer("low", ("pkg", "pkg.low")), Layer("mid", ("pkg.mid",)), Layer("high", ("pkg.high", "top")))


def _tree(root: Path, files: dict[str, str]) -> Path:
    """A package tree under ``root``: ``pkg`` with ``low``/``mid``/``high`` parts, and ``top``."""
    base = {"pkg/__init__.py": "", "pkg/low/__init__.py": "", "pkg/mid/__init__.py": "",
            "pkg/high/__init__.py": "", "pkg/high/api.py": "def run():\n    pass\n", "top/__init__.py": "",
            # references that are allowed: down, within a layer, relative, and to other packages
            "pkg/mid/m.py": ("import os\nfrom pkg.low import base\nfrom . import sibling\n"
                             "TABLE = {'x': 'pkg.low.base:f', 'y': 'os.path:join', 'z': 'learned:PATH'}\n"),
            "pkg/mid/sibling.py": "from .m import TABLE\n",
            "pkg/low/base.py": "import json\n\n\ndef f():\n    return json\n",
            "top/script.py": "import pkg.high.api\nfrom pkg.mid import m\n"}
    for name, text in {**base, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize("text, line, imported, how", [
    ("import json\nimport pkg.high.api\n", 2, "pkg.high.api", "import"),
    ("def f():\n    from pkg.high.api import run\n    return run()\n", 2, "pkg.high.api", "import"),
    ("from ..high import api\n", 1, "pkg.high.api", "import"),
    ("from pkg import high\n", 1, "pkg.high", "import"),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import top\n", 3, "top", "import"),
    ("REGISTRY = {\n    'name': 'pkg.high.api:run',\n}\n", 2, "pkg.high.api", "registry string"),
], ids=["module-level", "inside-a-function", "relative", "from-package-import-module", "type-checking",
        "registry-string"])
def test_one_upward_reference_is_reported_exactly(tmp_path, text, line, imported, how):
    """Fails if the check misses an upward reference of this kind, or reports an allowed one."""
    root = _tree(tmp_path, {"pkg/low/leaf.py": text})
    assert upward_imports(root, LOW_HIGH) == [
        Violation("pkg/low/leaf.py", line, "pkg.low.leaf", imported, "low", "high", how)]
    assert check(root, LOW_HIGH) == [f"pkg/low/leaf.py:{line}: pkg.low.leaf (low) -> {imported} (high), by {how}"]


def test_a_tree_without_upward_references_passes(tmp_path):
    """Fails if the check reports a downward, same-layer, relative or third-party reference."""
    assert check(_tree(tmp_path, {}), LOW_HIGH) == []


def test_unplaced_modules_and_stale_rows_are_reported(tmp_path):
    """Fails if a package that no row places, or a row naming no module, goes unnoticed."""
    root = _tree(tmp_path, {"extra/__init__.py": "", "extra/tool.py": "import pkg.high.api\n"})
    layers = (*LOW_HIGH, Layer("gone", ("pkg.moved_away",)))
    assert check(root, layers) == ["extra/__init__.py: extra is in no layer (add it to LAYERS)",
                                   "extra/tool.py: extra.tool is in no layer (add it to LAYERS)",
                                   f"LAYERS: pkg.moved_away (gone) names no module under {root}"]


def test_the_most_specific_row_places_a_module():
    """Fails if a preset or a Backend object in a backend's folder were placed with the backend
    instead of the runner, or a new module of a backend's folder escaped the backends' layer."""
    names = [layer.name for layer in LAYERS]
    assert names[layer_of("prover.coq.presets")] == "runner"
    assert names[layer_of("prover.coq.env")] == "backends"
    assert names[layer_of("prover.coq.backend")] == "runner"
    assert names[layer_of("prover.coq.not_yet_placed")] == "backends"
    assert names[layer_of("prover.not_yet_placed")] == "runner"
    assert layer_of("elsewhere.module") is None


def test_the_architecture_page_shows_the_layers_as_they_are():
    """Fails if the layer table of docs/architecture.md and LAYERS disagree (order, names or modules)."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    table = page[page.index("| layer | modules | why there |"):].split("\n\n")[0]
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    assert [(row[0].strip("| "), tuple(re.findall(r"`([\w.]+)`", row[1]))) for row in rows] == \
        [(layer.name, layer.modules) for layer in LAYERS]
