"""``dojo-prover interact`` with real coqtop/coqc: driven in a tmux terminal and through a pipe."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
PROOF = "Proof.\n  induction l.\n  reflexivity.\n  simpl; rewrite IHl; reflexivity.\nQed."


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}


def test_prove_a_stdlib_lemma_in_a_terminal_by_picking_and_typing(tmp_path):
    """Types a tactic, a failing tactic, picks a suggestion by the number the screen shows, types
    the last tactic, and reads the verified proof off the screen. Fails if the screen lacks the
    goals or the tried suggestions, if a failing tactic changes the state or hides Coq's message,
    or if the proof printed is not the steps taken, re-checked."""
    socket = f"interact-test-{os.getpid()}"  # a tmux server of this test's own
    tmux = ["tmux", "-L", socket]
    command = (f"{sys.executable} -m prover.cli interact --env coq Coq.Lists.List.app_nil_r; "
               f"echo EXIT=$?; sleep 60")
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "160", "-y", "60", command],
                   check=True, env=_env(), cwd=ROOT)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-1000", "-t", "t"], capture_output=True,
                              text=True, check=True).stdout

    def wait_for(pattern: str, since: str = "") -> str:
        """The screen from the last ``since`` on, once ``pattern`` matches it."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = screen()
            if since:
                text = text[text.rfind(since):] if since in text else ""
            if re.search(pattern, text, re.S):
                return text
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never appeared; the screen:\n{screen()}")

    def send(keys: str) -> None:
        subprocess.run([*tmux, "send-keys", "-t", "t", "-l", keys], check=True)
        subprocess.run([*tmux, "send-keys", "-t", "t", "Enter"], check=True)

    try:
        first = wait_for(r"step 1\n.*l \+\+ \[\] = l\nsuggestions \(already tried\):.*\n>\s*\Z")
        assert re.search(r"reflexivity\.\s+error: .*Unable to unify", first)
        send("induction l.")
        second = wait_for(r"step 2.*IHl : l \+\+ \[\] = l.*\n>\s*\Z", "> induction l.")
        send("foo_bar.")
        wait_for(r"foo_bar\. -> error; the state is unchanged:\n\s+The reference foo_bar was not found.*\n>\s*\Z",
                          "> foo_bar.")
        number = re.search(r"(\d+)\. reflexivity\.\s+1 goal\(s\)", second).group(1)
        send(number)
        wait_for(r"step 3\ngoal 1 of 1\n.*IHl.*\n>\s*\Z", f"> {number}\n")
        send("simpl; rewrite IHl; reflexivity.")
        final = wait_for(r"EXIT=\d", "> simpl; rewrite")
        assert "proof (coqc and coqchk accepted the proof; Closed under the global context):\n" + PROOF in final
        assert "EXIT=0" in final
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def test_commands_from_a_pipe_back_and_search_from_here():
    """Fails if a bad suggestion number or ``back`` at the start moves the state, if ``back`` does
    not undo, or if ``search`` does not finish the proof from the current state (kept steps first)."""
    script = "99\nback\ninduction l.\nback\ninduction l.\nsearch 20\n"
    out = subprocess.run([sys.executable, "-m", "prover.cli", "interact", "Coq.Lists.List.app_nil_r"],
                         input=script, capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "no suggestion 99: there are 12" in out.stdout and "already at the start" in out.stdout
    assert out.stdout.count("step 2") == 2 and out.stdout.count("step 1\n") == 2  # back went to step 1
    found = re.search(r"found: (.*)\n", out.stdout).group(1)
    proof = out.stdout[out.stdout.index("Proof.\n"):]
    assert proof.startswith("Proof.\n  induction l.\n") and proof.split("\n")[2:-2] == \
        [f"  {t}." for t in found.rstrip(".").split(". ")]


def test_a_statement_rejected_by_coq_is_one_line():
    """Fails if a bad --statement reaches the session instead of being named as bad input."""
    out = subprocess.run([sys.executable, "-m", "prover.cli", "interact", "--statement", "Lemma x : nosuch = 1.", "x"],
                         input="", capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert out.returncode == 2 and out.stderr.startswith("dojo-prover interact: error: --statement")
    assert out.stderr.count("\n") == 1


TERMINAL_CONTROLS = {chr(c) for c in [*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0)]} | {
    "\u202e", "\u2066", "\u200b", "\u2028"}
# an OSC 8 hyperlink, a bell, Rich-like markup, clear screen, a bidi override, backspace, carriage return
HOSTILE = "\x1b]8;;http://evil\x07[x H]\x1b[2J\u202e\x08\r"
HOSTILE_SHOWN = "\\x1b]8;;http://evil\\x07[x H]\\x1b[2J\\u202e\\x08\\x0d"


def _interact(args: list[str], script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "prover.cli", "interact", "--suggestions", "2", *args],
                          input=script, capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=300)


def test_terminal_escapes_in_goals_and_messages_are_shown_not_obeyed():
    """A statement and a failing tactic's message carry escape sequences. Fails if any control,
    bidi or separator character reaches the terminal (stdout or stderr) as itself, or if the goal
    and Coq's message are not shown with each one written as its escape."""
    statement = f'Lemma esc : forall s : string, s = "{HOSTILE}" -> s = s.'
    out = _interact(["--statement", statement, "--prelude", "Require Import Coq.Strings.String.",
                     "--prelude", "Open Scope string_scope.", "esc"],
                    'fail "\x1b]0;owned\x07 \x9b31m".\nexact I.\nintros s H.\nreflexivity.\n')
    assert out.returncode == 0, out.stderr[-2000:]
    assert not (set(out.stdout) | set(out.stderr)) & TERMINAL_CONTROLS
    assert f'  forall s : string, s = "{HOSTILE_SHOWN}" -> s = s\n' in out.stdout
    assert f'H : s = "{HOSTILE_SHOWN}"\n' in out.stdout
    refused, coq_error = out.stdout.split("the state is unchanged:")[1:3]
    assert 'fail "\\x1b]0;owned\\x07 \\x9b31m". -> refused;' in out.stdout
    assert "refused tactic 'fail \"\\x1b]0;owned\\x07 \\x9b31m\".': it contains control characters" in refused
    assert "exact I. -> error;" in out.stdout and HOSTILE_SHOWN in coq_error  # Coq's message quotes the goal
    assert out.stdout.endswith("Proof.\n  intros s H.\n  reflexivity.\nQed.\n")


def test_an_error_quoting_hostile_input_is_one_escaped_line():
    """Fails if the one-line error naming a bad --statement passes its escape sequences to the terminal."""
    out = _interact(["--statement", f"Lemma x : nosuch{HOSTILE} = 1.", "x"], "")
    assert out.returncode == 2 and out.stderr.startswith("dojo-prover interact: error: --statement")
    assert out.stderr.count("\n") == 1 and not set(out.stderr[:-1]) & TERMINAL_CONTROLS
    assert HOSTILE_SHOWN.replace("\\x0d", "") in out.stderr.replace("\\x0d", "")


def test_a_proof_the_recheck_rejects_exits_1_and_is_not_printed():
    """The session accepts `destruct cheat.` (a prelude axiom proves False), the re-check does not.
    Fails if interact then exits 0 or prints the proof as if it were checked."""
    out = _interact(["--statement", "Lemma bad : 0 = 1.", "--prelude", "Axiom cheat : False.", "bad"],
                    "destruct cheat.\n")
    assert out.returncode == 1, out.stdout[-2000:]
    assert "> the backend's re-check rejected the proof: not proved (assumes " in out.stdout
    assert "cheat" in out.stdout.split("rejected the proof:")[1]
    assert "Proof." not in out.stdout and "Qed." not in out.stdout
