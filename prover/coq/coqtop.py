"""A driver for one ``coqtop -emacs`` process (Coq 8.16): send a sentence, read its reply.

In ``-emacs`` mode coqtop ends every reply with a prompt such as
``<prompt>lemma < 12 |lemma| 0 < </prompt>``: the name of the open proof (``Coq`` outside
proofs), the id of the state at the tip of the document, the stack of open proofs and a depth.
Exactly one prompt follows each sentence, so a reply is framed by reading until the next prompt.
Standard error (prompts, errors) is merged into standard output (goals, messages) so that the
order of messages and prompts is kept; coqtop flushes standard output before each prompt.

Facts about 8.16 this driver relies on (checked by the tests):

* a sentence that succeeds moves the tip to a fresh, larger state id; a sentence that fails
  (``Error: ...``) leaves the tip where it was, so failure is told by the id, not by parsing text
  that a tactic such as ``idtac "Error: ..."`` could imitate;
* ``BackTo N.`` moves the tip back to state ``N``; queries (``Show``) also get fresh state ids,
  with the proof unchanged;
* the proof state is printed after a sentence only if its goals differ from those of the
  previous command, which ``BackTo`` does not reset (see :attr:`Reply.stale_printer`);
* messages printed on behalf of tactics (``idtac``) are wrapped in ``<infomsg>`` tags, but they
  may be flushed *after* the sentence's error (a tactic still printing when ``Timeout`` fires);
  the error itself is the block ``Toplevel input, characters i-j:`` / ``> <the sentence>`` /
  carets / ``Error: ...``, which :attr:`Reply.error` finds by that echo of the sentence;
* a sentence that is a comment alone is a syntax error whose error block echoes the comment, and
  leaves the tip and the printer as they were;
* ``SIGINT`` interrupts the running sentence (``Error: User interrupt.``) and keeps the state.

Untrusted text can make coqtop print anything, a prompt included (``idtac`` of a computed
string, a goal holding a string literal, an error message). So every batch of sentences ends
with a sync mark, a comment holding a fresh random nonce: the reply that echoes the nonce is the
mark's, and the replies before it must be exactly one per sentence sent. More (an imitated
prompt) raises :class:`ForgedReply` with the stream re-synchronised at the mark; fewer (a
sentence that swallowed the mark, e.g. an unclosed comment) kills the process.

Input and output are bounded and never deadlock: input is written without blocking while
replies are read (``select`` on both pipes, so a replay of any size flows through coqtop's
64 KB pipes), a sentence over :data:`MAX_SENTENCE_BYTES` raises :class:`SentenceTooLong` before
anything is written, and a reply over :data:`MAX_REPLY_BYTES` keeps only its head and tail
(:attr:`Reply.dropped`; such a reply never counts as a success). Reading uses ``select`` and
``os.read``, never line-by-line polling, so a reply costs one system call or two beyond what
coqtop itself spends.
"""

from __future__ import annotations

import os
import re
import resource
import secrets
import select
import signal
import subprocess
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from .sandbox import confined, sandbox_dir, sandbox_env
from .sentences import one_line

# The proof name and the stack hold Coq identifiers, which never contain ``<``, ``>`` or ``|``:
# an imitated ``<prompt>`` right before a real one cannot merge with it into one match.
PROMPT = re.compile(rb"<prompt>([^\s<>|]+) < (\d+) \|([^<>|]*)\| (\d+) < </prompt>")
MAX_PROMPT_BYTES = 8192  # longest prompt looked for across reads (proof names are identifiers)
MAX_SENTENCE_BYTES = 256 * 1024  # no stdlib sentence comes near (its largest file is 136 KB)
MAX_REPLY_BYTES = 8 * 1024 * 1024  # past this a reply keeps its head and its tail only
REPLY_HEAD_BYTES = 64 * 1024
REPLY_TAIL_BYTES = 1024 * 1024  # holds the error block and the last flush of messages (64 KB)
MAX_ERROR_CHARS = 4000  # of an error message handed on (a failing tactic may print megabytes)
_WRITE_CHUNK = 1 << 16
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


class ForgedReply(CoqtopDied):
    """coqtop printed more prompts than sentences were sent: some output imitated a prompt (or a
    "sentence" was several).

    The process is alive and its tip is known (read at the sync mark), but no reply of the batch
    can be attributed to its sentence. A subclass of :class:`CoqtopDied` so that a caller that does
    not handle it restarts coqtop, which is always safe.
    """


class SentenceTooLong(ValueError):
    """A sentence over :data:`MAX_SENTENCE_BYTES`; nothing was sent."""


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
    sentence: str = ""  # the line sent, which coqtop echoes in its error block
    dropped: int = 0  # bytes of output dropped from the middle (over MAX_REPLY_BYTES); ok is then False

    @property
    def error(self) -> str:
        """The ``Error:`` message of a failed sentence (empty for a success), at most
        :data:`MAX_ERROR_CHARS` characters.

        Taken from coqtop's error block for this sentence (the one that echoes it), so that
        messages printed by the tactic, before or after that block, are not mistaken for it.
        """
        if self.ok:
            return ""
        block = _error_block(self.output, self.sentence)
        if block is not None:
            return block[:MAX_ERROR_CHARS]
        at = self.output.find("Error:")
        text = self.output[at + len("Error:"):] if at >= 0 else self.output
        return text.strip()[:MAX_ERROR_CHARS]

    @property
    def timed_out(self) -> bool:
        """Coq's ``Timeout`` stopped the sentence (its own error block says ``Timeout!``)."""
        return not self.ok and _error_block(self.output, self.sentence) == "Timeout!"


def _error_block(output: str, sentence: str) -> str | None:
    """The message of coqtop's last error block that echoes ``sentence``; None if there is none."""
    if not sentence:
        return None
    header = re.compile(r"Toplevel input, characters \d+-\d+:\n> " + re.escape(sentence) + r"\n>[ \^]*\nError: ")
    matches = list(header.finditer(output))
    if not matches:
        return None
    rest = output[matches[-1].end():]
    late = rest.find("\n<infomsg>")  # messages flushed after the error (a tactic still printing)
    return (rest if late < 0 else rest[:late]).strip()


class Coqtop:
    """One coqtop process. Not thread-safe; one sentence at a time.

    ``memory_limit_mb`` caps the address space (``None``: no cap); ``interrupt_grace`` is how long
    a sentence gets after ``SIGINT`` before the process is killed; ``options`` are sentences run
    at every (re)start. Every start runs coqtop in a fresh sandbox directory (working directory,
    ``HOME``, ``TMPDIR``: :mod:`prover.coq.sandbox`), removed when the process is killed, so that
    nothing a process wrote is there for the next one, and ``-q`` keeps a user's ``coqrc`` out.
    """

    def __init__(
        self,
        args: tuple[str, ...] = (),
        memory_limit_mb: int | None = 4096,
        interrupt_grace: float = 2.0,
        options: tuple[str, ...] = DEFAULT_OPTIONS,
        executable: str = "coqtop",
    ) -> None:
        self.args = tuple(args)
        self.memory_limit_mb = memory_limit_mb
        self.interrupt_grace = interrupt_grace
        self.options = options
        self.executable = executable
        self.proc: subprocess.Popen | None = None
        self._sandbox = ExitStack()  # holds the running process's sandbox directory
        self.tip = 0  # state id at the tip of the document, from the last prompt
        self.proof_name = "Coq"
        self.start_state = 0  # the tip right after the options: an empty document
        self.sentences_sent = 0  # over the lifetime of this object, restarts included
        self._printer_synced = True  # see Reply.stale_printer
        self._buf = bytearray()  # output read and not yet framed
        self._scan = 0  # where in _buf a prompt may still start
        self._head: bytes | None = None  # the head kept of a reply over MAX_REPLY_BYTES
        self._dropped = 0  # bytes dropped from the middle of that reply
        self._pending = b""  # input not yet written

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
        sandbox = self._sandbox.enter_context(sandbox_dir("coqtop"))
        try:
            self.proc = subprocess.Popen(
                confined([self.executable, "-q", "-emacs", *self.args], sandbox, hammer=True),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                bufsize=0,
                cwd=sandbox,
                env=sandbox_env(sandbox),
                start_new_session=True,  # its own process group, so signals reach coqtop alone
            )
        except OSError as exc:
            self._sandbox.close()
            raise CoqtopDied(f"cannot start {self.executable!r}: {exc}") from exc
        if limit is not None:
            # set from outside (no preexec_fn, which is unsafe in threaded callers such as Ray
            # workers); coqtop's start-up stays far below any sensible cap
            resource.prlimit(self.proc.pid, resource.RLIMIT_AS, (limit, limit))
        assert self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), False)  # see _read_reply: writes never block
        self._buf, self._scan, self._head, self._dropped, self._pending = bytearray(), 0, None, 0, b""
        self._printer_synced = True
        self._read_reply(timeout)  # the banner and the first prompt
        for option in self.options:
            reply = self.send(option, timeout)
            if not reply.ok:
                raise CoqtopDied(f"coqtop refused its start-up option {option!r}: {reply.error}")
        self.start_state = self.tip

    def kill(self) -> None:
        """Kill the process (SIGKILL), reap it and remove its sandbox; a no-op when there is none."""
        proc, self.proc = self.proc, None
        if proc is None:
            self._sandbox.close()
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
        self._sandbox.close()

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
        """Run several sentences pipelined (written while replies are read), one reply each.

        Pipelining saves a round trip per sentence; coqtop still runs them one after another, so a
        failed sentence does not stop the following ones. ``timeout`` applies to each reply.
        Each sentence must be exactly one Coq sentence; its line breaks are sent as spaces, except
        inside quotations (:func:`prover.coq.sentences.one_line`).
        Raises :class:`SentenceTooLong` (nothing sent), :class:`ForgedReply` or :class:`CoqtopDied`.
        """
        if self.proc is None or self.proc.stdin is None:
            raise CoqtopDied("coqtop is not running")
        lines = [one_line(s) for s in sentences]
        for line in lines:
            if len(line.encode()) > MAX_SENTENCE_BYTES:
                raise SentenceTooLong(f"sentence of {len(line.encode())} bytes refused (the coqtop driver takes at "
                                      f"most {MAX_SENTENCE_BYTES}): {line[:80]!r}...")
        nonce = secrets.token_hex(12)
        self._pending += "".join(line + "\n" for line in lines + [f"(*dojo-sync {nonce}*)."]).encode()
        self.sentences_sent += len(sentences)
        framed: list[tuple[str, int, int, bool, int]] = []  # output, tip before, tip after, interrupted, dropped
        extra = 0  # replies beyond one per sentence (not kept: they are discarded anyway)
        while True:
            before = self.tip
            output, interrupted, dropped = self._read_reply(timeout)
            if nonce in output:
                break
            if len(framed) < len(sentences):
                framed.append((output, before, self.tip, interrupted, dropped))
            elif interrupted:  # a sentence swallowed the mark and coqtop waits for more input
                raise self._died("coqtop waited for input past the sync mark (a sentence left a comment or a "
                                 "string open); killed")
            else:
                extra += 1
        if extra or len(framed) < len(sentences) or self.tip != before:
            self._printer_synced = False
            if extra == 0:  # the mark was swallowed by a sentence: what coqtop ran is unknown
                raise self._died(f"coqtop answered {len(framed)} replies to {len(sentences)} sentences: one of "
                                 f"{[line[:80] for line in lines]!r} is not exactly one sentence; killed")
            raise ForgedReply(f"coqtop printed {len(sentences) + extra} prompts for {len(sentences)} sentences: the "
                              f"output of {[line[:80] for line in lines]!r} imitated coqtop's prompt (or one was "
                              f"more than one sentence); replies discarded")
        replies = []
        for line, (output, before, after, interrupted, dropped) in zip(lines, framed):
            backto = _backto_target(line)
            ok = after == backto if backto is not None else after > before and not interrupted and not dropped
            replies.append(Reply(output, after, self.proof_name, ok, interrupted, not self._printer_synced,
                                 line, dropped))
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

    def _read_reply(self, timeout: float | None) -> tuple[str, bool, int]:
        """Read up to and including the next prompt, writing pending input meanwhile.

        Returns (output before the prompt, interrupted, bytes dropped from its middle). Writing
        only when the input pipe has room and reading whenever output is there means neither
        side ever blocks on a full pipe, whatever the sizes.
        """
        assert self.proc is not None and self.proc.stdout is not None and self.proc.stdin is not None
        out_fd, in_fd = self.proc.stdout.fileno(), self.proc.stdin.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        interrupted = False
        while True:
            m = PROMPT.search(self._buf, self._scan)
            if m is not None:
                return self._take_reply(m), interrupted, self._take_dropped()
            self._scan = max(self._scan, len(self._buf) - MAX_PROMPT_BYTES)
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            readable, writable, _ = select.select([out_fd], [in_fd] if self._pending else [], [], wait)
            if writable:
                self._write_some(in_fd)
            if readable:
                chunk = os.read(out_fd, 1 << 16)
                if not chunk:
                    raise self._died("coqtop exited")
                self._buf += chunk
                if len(self._buf) > MAX_REPLY_BYTES:
                    self._drop_middle()
            if deadline is None or time.monotonic() < deadline or (readable and PROMPT.search(self._buf, self._scan)):
                continue  # (a prompt read just as the watchdog expired: the reply came in time)
            if not interrupted and not self._pending and self._waits_for_input():
                raise self._died(f"coqtop waited {timeout}s for input that was all sent (a sentence left a "
                                 f"quotation, comment or string open and swallowed the rest); killed")
            if interrupted:
                raise self._died(f"coqtop hung and ignored SIGINT for {self.interrupt_grace}s; killed")
            interrupted = True
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                raise self._died("coqtop vanished") from None
            deadline = time.monotonic() + self.interrupt_grace

    def _waits_for_input(self, probe: float = 2.0) -> bool:
        """Whether coqtop, its watchdog expired with all input written, is blocked reading input
        rather than running a sentence: it slept (not stopped) through ``probe`` seconds without
        using CPU time and has no child process (an external prover it would wait for), as
        ``/proc`` says (False where it cannot tell).

        That is a sentence that opened a quotation, a comment or a string and took the rest of
        the input (the sync mark too) while it waits for the end. SIGINT does not help there:
        coqtop answers it and reads on, so every reply still expected would wait out its own
        watchdog, for hours over a long batch. The process is killed at once instead.
        """
        assert self.proc is not None
        proc = Path(f"/proc/{self.proc.pid}")

        def ticks() -> int | None:
            try:
                if (proc / "task" / str(self.proc.pid) / "children").read_text().strip():  # type: ignore[union-attr]
                    return None
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] != "S":  # not asleep waiting for an event (running, stopped, in disk I/O)
                    return None
                return int(fields[11]) + int(fields[12])  # utime, stime
            except (OSError, IndexError, ValueError):
                return None

        before = ticks()
        if before is None:
            return False
        time.sleep(probe)
        return ticks() == before

    def _write_some(self, fd: int) -> None:
        try:
            n = os.write(fd, self._pending[:_WRITE_CHUNK])
        except BlockingIOError:
            return
        except OSError as exc:  # BrokenPipeError: coqtop is gone
            raise self._died(f"writing to coqtop failed: {exc}") from exc
        self._pending = self._pending[n:]

    def _drop_middle(self) -> None:
        """Bound the memory of a reply with no prompt yet: keep its head and its last bytes."""
        if self._head is None:
            self._head = bytes(self._buf[:REPLY_HEAD_BYTES])
            del self._buf[:REPLY_HEAD_BYTES]
        cut = len(self._buf) - REPLY_TAIL_BYTES
        del self._buf[:cut]
        self._dropped += cut
        self._scan = max(0, self._scan - cut)

    def _take_reply(self, m: re.Match) -> str:
        raw = bytes(self._buf[: m.start()])
        if self._head is not None:
            self._dropped += max(0, len(raw) - REPLY_TAIL_BYTES)
            raw = self._head + f"\n[... {self._dropped} bytes of output dropped ...]\n".encode() + raw[-REPLY_TAIL_BYTES:]
        self.proof_name = m.group(1).decode()  # before the buffer changes under the match
        self.tip = int(m.group(2))
        del self._buf[: m.end()]
        self._scan = 0
        return raw.decode("utf-8", errors="replace").strip("\n")

    def _take_dropped(self) -> int:
        dropped, self._head, self._dropped = self._dropped, None, 0
        return dropped


_BACKTO = re.compile(r"\s*BackTo\s+(\d+)\s*\.\s*$")


def _backto_target(sentence: str) -> int | None:
    m = _BACKTO.match(sentence)
    return None if m is None else int(m.group(1))
