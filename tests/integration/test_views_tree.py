"""Tree pages rebuilt from the action log of a real Coq search, and opened in headless Chromium."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess

import pytest

from generator import FixedTacticGenerator
from prover.coq.context import adhoc_theorem
from prover.coq.env import CoqEnvironment
from prover.proof_search import BestFirstSearchProver
from prover.views.safe_text import html_text
from prover.views.tree import build_tree
from prover.views.tree_html import tree_page
from search_tree import Status
from search_tree.events import SearchEvent, parse_events

SYM = adhoc_theorem("Lemma sym_demo : forall n m : nat, n = m -> m = n.")
# intros and "intros n m H" reach the same state (a merge); idtac is a no-op (a cycle); the
# nonsense is a Coq error; revert H leads off the proof path; symmetry then exact H is the proof.
TACTICS = ["intros.", "intros n m H.", "idtac.", "revert H.", "symmetry.", "nonsense_tactic.", "exact H."]


@pytest.fixture(scope="module")
def search():
    events: list[SearchEvent] = []
    with CoqEnvironment(tactic_timeout=2) as env:
        result = BestFirstSearchProver(FixedTacticGenerator(TACTICS), timeout=60, num_sampled_tactics=8).search(
            env, SYM, on_event=events.append)
    assert result.status == Status.PROVED
    return events, [step.tactic for step in result.proof]


def _steps(tree):
    return {(node.id, step.tactic): step for node in tree.nodes.values() for step in node.steps}


def test_edges_get_their_outcome_kinds_and_nodes_their_goals(search):
    """Fails if a no-op tactic is shown as a new state (the old "→ state" view), if a state equal
    to one met before is not told apart as merged, or if the log lacks the goals (Meter.describe)."""
    events, proof = search
    tree = build_tree(events, proof)
    steps = _steps(tree)
    root = tree.root
    assert steps[(root, "idtac.")].kind == "cycle" and steps[(root, "idtac.")].target == root
    intro = steps[(root, "intros.")]
    assert intro.kind == "new" and steps[(root, "intros n m H.")].kind == "merged"
    assert steps[(root, "intros n m H.")].target == intro.target
    assert steps[(root, "nonsense_tactic.")].kind == "error"
    assert "nonsense_tactic" in steps[(root, "nonsense_tactic.")].message
    after = tree.nodes[intro.target]
    assert [h[0] for h in after.goals[0].hypotheses] == ["n", "m", "H"]
    assert after.goals[0].target == "m = n"
    assert steps[(root, "intros.")].numbers["logprob"] == pytest.approx(math.log(1 / len(TACTICS)), abs=1e-3)
    assert tree.nodes[root].numbers == {"priority": 0.0}
    assert [s.tactic for s in steps.values() if s.on_proof] == proof == ["symmetry.", "exact H."]  # symmetry intros


def test_a_corrupt_event_is_left_out_with_a_warning(search):
    """Fails if a malformed event aborts the whole tree instead of being reported and skipped."""
    events, proof = search
    lines = [json.dumps(e.to_json()) for e in events]
    parsed, problems = parse_events([*lines[:3], '{"event": "tactic", "state": 1}', *lines[3:]], "log.jsonl")
    assert parsed == events
    assert problems == ["log.jsonl:4: a 'tactic' event's field 'tactic' is missing; that event is left out"]
    tree = build_tree(parsed, proof, problems)
    assert tree.proof_length() == len(proof) == 2
    assert f"warning: {html_text(problems[0])}" in tree_page(tree, "t")


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_page_renders_goals_and_a_collapsed_state_opens_in_chromium(search, tmp_path):
    """Opens the page in headless Chromium (``--dump-dom``: the DOM after the inline script ran) at
    ``#s<id>`` (what a merged edge's link does) and at ``#find=TEXT`` (the search box). Fails if the
    goals are not in the page, if states off the proof path are not collapsed, or if the search
    script does not open and mark the collapsed state holding the text (e.g. ``reveal`` broken)."""
    events, proof = search
    tree = build_tree(events, proof)
    page = tmp_path / "tree.html"
    page.write_text(tree_page(tree, "sym_demo"))
    target = _steps(tree)[(_steps(tree)[(tree.root, "intros.")].target, "revert H.")].target  # off the proof

    def dom(fragment: str) -> str:
        out = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                              f"file://{page}#{fragment}"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout

    def wrapper_open(text: str) -> bool:
        """Whether the <details> holding state ``target`` is open in ``text``."""
        match = re.search(r"<details( open(=\"\")?)?><summary[^>]*>(?:(?!<details).)*?</summary><div class=\"node\" "
                          rf"id=\"s{target}\"", text, re.S)
        assert match, f"state {target} not found in the DOM"
        return match.group(1) is not None

    plain = dom("nothing")
    assert "H : n = m" in plain and "m = n" in plain
    assert not wrapper_open(plain)
    assert wrapper_open(dom(f"s{target}"))  # a link's target (Chromium also opens these by itself)
    found = dom("find=revert%20H.")  # the search box's script, driven from the address
    assert wrapper_open(found) and re.search(r'<summary class="hit"><code>revert H\.</code>', found)


INJECT = "<img src=x onerror=\"document.body.dataset.owned=1\">"
HOSTILE_EVENTS = [
    {"event": "state", "state": 0, "goals": [{"name": f"g{INJECT}", "hypotheses": [[f"H{INJECT}", "\x1b[2Jn = m"]],
                                               "target": f"m = n{INJECT}\u202e"}]},
    {"event": "tactic", "state": 0, "tactic": f"exact {INJECT}'>", "outcome": "error",
     "message": f"</span>{INJECT}\x07", "seconds": 0.1},
    {"event": "tactic", "state": 0, "tactic": "t1", "outcome": f"error'>{INJECT}", "seconds": 0.1},
    {"event": "tactic", "state": 0, "tactic": "t2", "outcome": "state", "next_state": f"1'>{INJECT}"},
    {"event": "tactic", "state": 0, "tactic": "t3", "outcome": "error", "seconds": f"{INJECT}"},
    {"event": "tactic", "state": 0, "tactic": ["t4"], "outcome": "error"},
    {"event": "expand", "state": 0, "depth": 0, "priority": f"{INJECT}"},
    {"event": "state", "state": 2, "goals": [{"target": ["not text"]}]},
    {"event": "tactic", "state": 0, "tactic": "exact H.", "outcome": "proved", "seconds": 0.2},
]


def test_a_hostile_log_cannot_put_markup_or_escapes_into_a_page(tmp_path):
    """A log edited to inject HTML through every field (tactic, message, goal, hypothesis, goal
    name, outcome, state id, seconds, numbers). Fails if a field the search writes as text reaches
    the page unescaped or with raw control characters, if a field of the wrong type or an unknown
    outcome is drawn instead of being left out with a warning, or (in Chromium) if the injected
    handler runs."""
    events, problems = parse_events([json.dumps(e) for e in HOSTILE_EVENTS], "hostile.jsonl")
    tree = build_tree(events, ["exact H."], problems)
    assert [s.tactic for s in tree.nodes[0].steps] == [f"exact {INJECT}'>", "exact H."]
    assert [re.sub(r": a '\w+' event's field '([\w\[\].]+)' .*", r" \1", p) for p in tree.problems] == [
        "hostile.jsonl:3 outcome", "hostile.jsonl:4 next_state", "hostile.jsonl:5 seconds", "hostile.jsonl:6 tactic",
        "hostile.jsonl:7 priority", "hostile.jsonl:8 goals[].target"]
    page = tree_page(tree, f"title {INJECT}", f"summary {INJECT}")
    assert "<img" not in page and "\x1b" not in page and "\x07" not in page and "\u202e" not in page
    assert "exact &lt;img src=x onerror=&quot;document.body.dataset.owned=1&quot;&gt;&#x27;&gt;" in page
    assert "H&lt;img" in page and "\\x1b[2Jn = m" in page and "m = n&lt;img" in page and "\\u202e" in page
    assert "&lt;/span&gt;&lt;img" in page and "\\x07" in page
    if _chromium() is None:
        pytest.skip("no Chromium to open the page in")
    path = tmp_path / "hostile.html"
    path.write_text(page)
    out = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", f"file://{path}"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "<body" in out.stdout and "data-owned" not in out.stdout and "<img" not in out.stdout
