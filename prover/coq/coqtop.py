"""A driver for one ``coqtop -emacs`` process (Coq 8.16): send a sentence, read its reply.

In ``-emacs`` mode coqtop ends every reply with a prompt such as
``<prompt>lemma < 12 |lemma| 0 < </prompt>``: the name of the open proof (``Coq`` outside
proofs), the id of the state at the tip of the document, the stack of open proofs and a depth.
Exactly one prompt follows each sentence, so a reply is framed by reading until the next prompt.
Standard error is merged into standard output so that the order of messages and prompts is kept.

Facts about 8.16 this driver relies on (checked by the tests):

* a sentence that succeeds moves the tip to a fresh, larger state id; a sentence that fails
  (``Error: ...``) leaves the tip where it was, so failure is told by the id, not by parsing text
  that a tactic such as ``idtac "Error: ..."`` could imitate;
* ``BackTo N.`` moves the tip back to state ``N``; queries (``Show``) also get fresh state ids,
  with the proof unchanged;
* the proof state is printed after a sentence only if its goals differ from those of the
  previous command, which ``BackTo`` does not reset (see :attr:`Reply.stale_printer`);
* messages printed on behalf of tactics (``idtac``) are wrapped in ``<infomsg>`` tags;
* ``SIGINT`` interrupts the running sentence (``Error: User interrupt.``) and keeps the state.

Reading uses ``select`` and ``os.read`` on the pipe, never line-by-line polling, so a reply costs
one system call or two beyond what coqtop itself spends.
"""

from __future__ import annotations

import os
import re
import resource
import select
import signal
import subprocess
import time
from dataclasses import dataclass

PROMPT = re.compile(rb"<prompt>(\S+) < (\d+) \|([^|]*)\| (\d+) < </prompt>")
# Options set in every fresh process: no line wrapping and no elision of deep terms, so that the
# printed goals are complete and parseable; unfocused goals are printed so that states under
# different bullets do not look alike.
DEFAULT_OPTIONS: tuple[str, ...] = (
    "Set Printing Width 1000000.",
    "Set Printing Depth 100000.",
    "Set Printing Unfocused.",
)


class CoqtopDied(RuntimeError):
    """The coqtop process exited, was killed, or had to be killed because it hung."""


@dataclass(frozen=True)
class Reply:
    """What coqtop answered to one sentence.

    ``output`` is everything printed before the prompt; ``state_id`` the tip after the sentence;
    ``proof_name`` the prompt's proof name (``Coq`` when no proof is open); ``ok`` says whether
    the sentence was accepted (the tip moved, or a ``BackTo`` landed where it was asked to).
    """

    output: str
    state_id: int
    proof_name: str
    ok: bool
    interrupted: bool = False  # the watchdog sent SIGINT and coqtop gave up the sentence
    # coqtop prints a proof state only when its goals differ (by evar number) from the state
    # of the previous command, and BackTo does not update that memory: a sentence run right
    # after BackTo whose goals reuse the evar numbers of the abandoned branch prints nothing
    # although its state is new. For such a reply an empty output says nothing (ask Show.).
    stale_printer: bool = False

    @property
    def error(self) -> str:
        """The ``Error:`` message of a failed sentence (empty for a success)."""
        if self.ok:
            return ""
        at = self.output.find("Error:")
        text = self.output[at + len("Error:"):] if at >= 0 else self.output
        return text.strip()


class Coqtop:
    """One coqtop process. Not thread-safe; one sentence at a time.

    ``memory_limit_mb`` caps the address space (``None``: no cap); ``interrupt_grace`` is how long
    a sentence gets after ``SIGINT`` before the process is killed; ``options`` are sentences run
    at every (re)start; ``cwd`` is coqtop's working directory (default: ours).
    """

    def __init__(
        self,
        args: tuple[str, ...] = (),
        memory_limit_mb: int | None = 4096,
        interrupt_grace: float = 2.0,
        options: tuple[str, ...] = DEFAULT_OPTIONS,
        executable: str = "coqtop",
        cwd: str | None = None,
    ) -> None:
        self.args = tuple(args)
        self.cwd = cwd  # where coqtop runs: tactics such as lia write caches (.lia.cache) there
        self.memory_limit_mb = memory_limit_mb
        self.interrupt_grace = interrupt_grace
        self.options = options
        self.executable = executable
        self.proc: subprocess.Popen | None = None
        self.tip = 0  # state id at the tip of the document, from the last prompt
        self.proof_name = "Coq"
        self.start_state = 0  # the tip right after the options: an empty document
        self.sentences_sent = 0  # over the lifetime of this object, restarts included
        self._printer_synced = True  # see Reply.stale_printer
        self._buf = b""

    # -- process lifetime ---------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = 60.0) -> None:
        """Start a fresh process (killing any previous one) and run :attr:`options`."""
        self.kill()
        limit = None if self.memory_limit_mb is None else self.memory_limit_mb * 1024 * 1024
        try:
            self.proc = subprocess.Popen(
                [self.executable, "-emacs", *self.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                bufsize=0,
                cwd=self.cwd,
                start_new_session=True,  # its own process group, so signals reach coqtop alone
            )
        except OSError as exc:
            raise CoqtopDied(f"cannot start {self.executable!r}: {exc}") from exc
        if limit is not None:
            # set from outside (no preexec_fn, which is unsafe in threaded callers such as Ray
            # workers); coqtop's start-up stays far below any sensible cap
            resource.prlimit(self.proc.pid, resource.RLIMIT_AS, (limit, limit))
        self._buf = b""
        self._printer_synced = True
        self._read_reply(timeout)  # the banner and the first prompt
        for option in self.options:
            reply = self.send(option, timeout)
            if not reply.ok:
                raise CoqtopDied(f"coqtop refused its start-up option {option!r}: {reply.error}")
        self.start_state = self.tip

    def kill(self) -> None:
        """Kill the process (SIGKILL) and reap it; a no-op when there is none."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    close = kill

    # -- talking --------------------------------------------------------------------------------

    def send(self, sentence: str, timeout: float | None = None) -> Reply:
        """Run one sentence and return coqtop's reply.

        ``timeout`` is a wall-clock watchdog in seconds: when it expires the sentence is
        interrupted with SIGINT (the reply then has ``interrupted``); if coqtop does not answer
        within :attr:`interrupt_grace` after that, the process is killed and :class:`CoqtopDied`
        raised. A dead process also raises :class:`CoqtopDied`.
        """
        return self.send_all([sentence], timeout)[0]

    def send_all(self, sentences: list[str], timeout: float | None = None) -> list[Reply]:
        """Run several sentences written in one go (one pipe write), one reply each.

        Pipelining saves a round trip per sentence; coqtop still runs them one after another, so a
        failed sentence does not stop the following ones. ``timeout`` applies to each reply.
        """
        if self.proc is None or self.proc.stdin is None:
            raise CoqtopDied("coqtop is not running")
        payload = "".join(s.replace("\n", " ") + "\n" for s in sentences).encode()
        self.sentences_sent += len(sentences)
        try:
            self.proc.stdin.write(payload)
        except (BrokenPipeError, OSError) as exc:
            raise self._died(f"writing to coqtop failed: {exc}") from exc
        replies = []
        for sentence in sentences:
            before = self.tip
            output, interrupted = self._read_reply(timeout)
            backto = _backto_target(sentence)
            ok = self.tip == backto if backto is not None else self.tip > before and not interrupted
            replies.append(Reply(output, self.tip, self.proof_name, ok, interrupted, not self._printer_synced))
            if ok:  # a failed sentence leaves coqtop's memory of the printed state as it was
                self._printer_synced = backto is None
        return replies

    def back_to_sentences(self, state_id: int) -> list[str]:
        """The sentences that move the tip to ``state_id`` (none when it is there already)."""
        return [] if state_id == self.tip else [f"BackTo {state_id}."]

    def back_to(self, state_id: int, timeout: float | None = None) -> None:
        """Move the tip back to ``state_id``; :class:`CoqtopDied` if coqtop refuses (a lost state)."""
        replies = self.send_all(self.back_to_sentences(state_id), timeout)
        bad = next((r for r in replies if not r.ok), None)
        if bad is not None:
            raise self._died(f"BackTo {state_id} failed: {bad.error}")

    def _died(self, why: str) -> CoqtopDied:
        code = None if self.proc is None else self.proc.poll()
        self.kill()
        return CoqtopDied(why if code is None else f"{why} (exit status {code})")

    def _read_reply(self, timeout: float | None) -> tuple[str, bool]:
        """Read up to and including the next prompt; returns (output before it, interrupted)."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        interrupted = False
        while True:
            m = PROMPT.search(self._buf)
            if m is not None:
                output = self._buf[: m.start()]
                self._buf = self._buf[m.end():]
                self.proof_name = m.group(1).decode()
                self.tip = int(m.group(2))
                return output.decode("utf-8", errors="replace").strip("\n"), interrupted
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], wait)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died("coqtop exited")
                self._buf += chunk
            elif not interrupted:
                interrupted = True
                try:
                    os.killpg(self.proc.pid, signal.SIGINT)
                except ProcessLookupError:
                    raise self._died("coqtop vanished") from None
                deadline = time.monotonic() + self.interrupt_grace
            else:
                raise self._died(f"coqtop hung and ignored SIGINT for {self.interrupt_grace}s; killed")


_BACKTO = re.compile(r"\s*BackTo\s+(\d+)\s*\.\s*$")


def _backto_target(sentence: str) -> int | None:
    m = _BACKTO.match(sentence)
    return None if m is None else int(m.group(1))
