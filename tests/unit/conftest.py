"""Unit tests: pure logic on scripted or synthetic backends and on real data classes, no Coq,
Lean, Ray or training; ``pytest tests/unit`` runs in seconds on any machine with the Python
requirements installed. Every test here is marked ``unit``."""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/tests/unit/" in str(item.path):
            item.add_marker(pytest.mark.unit)
