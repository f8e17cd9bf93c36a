"""A search tree as one self-contained HTML file: no network, usable at thousands of nodes.

Every state is a ``<details>`` element, collapsed unless it lies on the proof path, so the browser
lays out only what is open; its goals (hypotheses above the line, target below) are a collapsed
``<details>`` of their own. Each edge shows its tactic, its outcome kind (see
:data:`prover.views.tree.KINDS`), the backend's message, its time and the search's numbers.
Merged and cycle edges link to the state they reached (``#s<id>``) instead of repeating it.

A little inline script does two things, both also reachable from the address: ``#s<id>`` opens
every ``<details>`` around state ``<id>`` and its goals (what the links use), and the search box
(or ``#find=<text>``) opens and marks every edge or goal whose text contains ``<text>``.

Every text from the log (tactics, goals, messages, names) and from the run's records goes into the
page through :func:`prover.views.safe_text.html_text`: escaped for HTML, control and bidi
characters shown as escapes. What is not text (kinds, ids, numbers) :mod:`prover.views.tree` has
checked to be what a search writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from search_tree.safe_files import make_dir, replace_file
from prover.views.safe_text import html_text, md_code_block, md_text
from prover.views.tree import SearchTree, Step, build_tree, instructive
from search_tree.events import LoggedGoal

_KIND_LABELS = {"new": "new state", "merged": "merged into", "cycle": "cycle back to", "proved": "proof finished",
                "given_up": "gave up", "error": "error", "timeout": "timeout", "crash": "crash", "refused": "refused"}

_STYLE = """
body{font-family:sans-serif;margin:1em 2em} code,pre{font-family:monospace} pre.goal{background:#f4f4f4;
margin:.2em 0 .4em 1.5em;padding:.3em .5em;white-space:pre-wrap} ul{list-style:none;padding-left:1.2em;
margin:0;border-left:1px dotted #bbb} li{margin:.15em 0} .kind{font-size:85%;padding:0 .3em;border-radius:3px}
.k-new,.k-merged{background:#e6eefc}.k-cycle{background:#fff0c0}.k-proved{background:#c8f0c8}
.k-error,.k-timeout,.k-crash,.k-refused,.k-given_up{background:#fbdada} .num{color:#666;font-size:85%}
li.proof>details>summary,li.proof>code{font-weight:bold;color:#060} .hit{outline:2px solid #f90}
.warn{background:#fff3cd;padding:.4em} summary{cursor:pointer} .msg{color:#a00;font-size:85%}
"""

_SCRIPT = """
function reveal(el){for(let d=el.closest('details');d;d=d.parentElement.closest('details'))d.open=true;}
function find(text){const q=text.toLowerCase();let n=0;
 document.querySelectorAll('.hit').forEach(e=>e.classList.remove('hit'));
 if(q)document.querySelectorAll('li.step>details>summary,li.step:not(:has(>details)),pre.goal').forEach(e=>{
  if(e.textContent.toLowerCase().includes(q)){e.classList.add('hit');reveal(e);n++;}});
 document.getElementById('hits').textContent=q?n+' found':'';}
function route(){const h=decodeURIComponent(location.hash.slice(1));
 if(h.startsWith('find=')){document.getElementById('q').value=h.slice(5);find(h.slice(5));return;}
 const el=document.getElementById(h);if(el){reveal(el);const g=el.querySelector('details.goals');
 if(g)g.open=true;el.scrollIntoView();}}
window.addEventListener('hashchange',route);window.addEventListener('DOMContentLoaded',route);
"""


def _goals(goals: tuple[LoggedGoal, ...] | None) -> str:
    if goals is None:
        return "<p class='num'>(goals not in this log)</p>"
    if not goals:
        return "<p class='num'>(no goal in focus: the block is solved, others wait)</p>"
    parts = []
    for i, g in enumerate(goals, 1):
        hyps = "".join(f"{html_text(n)} : {html_text(t)}\n" for n, t in g.hypotheses)
        name = f" ({html_text(g.name)})" if g.name else ""
        parts.append(f"<pre class='goal'>goal {i}{name}\n{hyps}{'─' * 20}\n{html_text(g.target)}</pre>")
    return "".join(parts)


def _numbers(numbers: dict[str, float]) -> str:
    return "".join(f" <span class='num'>{k} {v:.3g}</span>" for k, v in numbers.items())


def _step_label(step: Step) -> str:
    label = _KIND_LABELS.get(step.kind, step.kind)
    target = f" <a href='#s{step.target}'>state {step.target}</a>" if step.kind in ("merged", "cycle") else ""
    message = f" <span class='msg'>{html_text(step.message[:300])}</span>" if step.message else ""
    return (f"<code>{html_text(step.tactic)}</code> <span class='kind k-{step.kind}'>{label}</span>{target}"
            f" <span class='num'>{1000 * step.seconds:.1f} ms</span>{_numbers(step.numbers)}{message}")


def _state(tree: SearchTree, state_id: int, open_goals: bool) -> str:
    node = tree.nodes[state_id]
    count = "?" if node.goals is None else len(node.goals)
    head = (f"<details class='goals'{' open' if open_goals else ''}><summary>state {state_id}: {count} goal(s), "
            f"depth {node.depth}{_numbers(node.numbers)}</summary>{_goals(node.goals)}</details>")
    items = []
    for step in node.steps:
        cls = f"step{' proof' if step.on_proof else ''}"
        if step.kind == "new" and step.target in tree.nodes:
            items.append(f"<li class='{cls}'><details{' open' if step.on_proof else ''}><summary>{_step_label(step)}"
                         f"</summary>{_state(tree, step.target, False)}</details></li>")
        else:
            items.append(f"<li class='{cls}'>{_step_label(step)}</li>")
    return f"<div class='node' id='s{state_id}'>{head}<ul>{''.join(items)}</ul></div>"


def tree_page(tree: SearchTree, title: str, summary: str = "") -> str:
    """The whole page for one search (``summary``: a line of text under the title)."""
    warn = "".join(f"<p class='warn'>warning: {html_text(p)}</p>" for p in tree.problems)
    kinds: dict[str, int] = {}
    for node in tree.nodes.values():
        for step in node.steps:
            kinds[step.kind] = kinds.get(step.kind, 0) + 1
    counts = ", ".join(f"{_KIND_LABELS.get(k, k)} {n}" for k, n in sorted(kinds.items()))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html_text(title)}</title>"
            f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head><body><h1>{html_text(title)}</h1>"
            f"<p>{html_text(summary)} {len(tree.nodes)} states; edges: {counts}. The proof path is bold green "
            f"and open; click a state's line for its goals.</p>{warn}"
            f"<p><input id='q' size='40' placeholder='find a tactic, message or goal text' "
            f"oninput='find(this.value)'> <span id='hits'></span></p>"
            f"{_state(tree, tree.root, True)}</body></html>\n")


def write_instructive_trees(run: Any, out_dir: Path) -> list[str]:
    """Write ``trees/<log>.html`` for the run's most instructive searches (see
    :func:`prover.views.tree.instructive`) and return the report's Markdown lines about them.
    ``run`` is a :class:`prover.run.analysis.Run`; a corrupt log line shows on that search's page.
    The lines are Markdown built from the run's untrusted values, so each goes through
    :func:`~prover.views.safe_text.md_text` (the proof through ``md_code_block``, the link's file
    name percent-encoded): none can close the link, the code block or the list item around it."""
    trees = {}
    for record in run.records:
        if record.get("log"):
            events, problems = run.read_events(record)
            trees[record["log"]] = build_tree(events, record["result"]["proof"], problems)
    chosen = instructive(run.records, trees)
    if not chosen:
        return []
    make_dir(out_dir / "trees")  # a symlink there is refused, and each page is a new file (no link followed)
    lines = ["", "## Searches to open", "",
             "The proved search with the longest proof, and the failed ones that came closest to a proof "
             "(fewest goals left at a state they reached). Each page shows every state with its goals and "
             "every tactic tried with its outcome.", ""]
    for record in chosen:
        tree = trees[record["log"]]
        stem = Path(record["log"]).stem
        title = f"{record['key']} (attempt {record['attempt']}, {record['status']})"
        res = record["result"]
        closest = "" if record["status"] == "proved" else f", fewest goals left {tree.fewest_goals()}"
        summary = (f"{res['num_nodes']} nodes, {res['num_env_calls']} environment calls, "
                   f"{res['total_time']:.1f}s, stopped: {res['stop_reason']}{closest}.")
        replace_file(out_dir / "trees" / f"{stem}.html", tree_page(tree, title, summary).encode(), fsync=False)
        warn = f" ({len(tree.problems)} corrupt log lines left out)" if tree.problems else ""
        lines.append(f"- [{md_text(title)}](trees/{quote(stem)}.html): {md_text(summary)}{warn}")
        if res["proof"]:
            lines += ["", *md_code_block(res["proof"], indent="  ")]
    return lines
