"""The Coq environment: the protocol's :class:`~search_tree.protocol.Environment` over coqtop.

    env = CoqEnvironment(tactic_timeout=5)
    theorem = env.theorem("Nat.le_0_l")                       # from the stdlib index
    # or CoqEnvironment(project="path/to/project").theorem("my_lemma")  (see prover.coq.project)
    # or adhoc_theorem("Lemma two : 1 + 1 = 2.", ["Require Import Arith."])
    with env.open(theorem) as (session, state):
        result = session.run_tac(state, "intros.")
    verdict = env.verify(theorem, proof)                      # coqc + Print Assumptions

Processes are pooled: a coqtop that served a theorem keeps its replayed file prefix for the next
theorem of the same file (see :mod:`prover.coq.worker`). Close the environment (or use it as a
context manager) to kill them.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from prover.defaults import RUN
from search_tree.protocol import Environment, Proof, TacticState, Theorem, Verification, proof_tactics

from .additions import (addition, annotate, available, hammer_filter, names, needed, offered, put_hammer_on_path,
                        reopens, with_additions)
from .context import CoqContext, adhoc_context, file_context
from .final_universes import UNIVERSES_REFUSED
from .hammer import HammerSession, RewriteLog
from .language import COQ
from .records import CoqFields
from .render import render_proof
from .reopened import compiled_module, reopen
from .session import CoqSession
from .verify import ASSUMES_REFUSED, LEAK_REFUSED, LEAK_UNCHECKED, SECTION_VARIABLES_REFUSED, unavoidable, verify_proof
from .worker import Worker

#: a tactic that builds a fixpoint, whose guard Coq checks only when the proof is closed
_FIXPOINT = re.compile(r"(?<![\w'.])(?:co)?fix(?![\w'])")

if TYPE_CHECKING:
    from .project import CoqProject

_log = logging.getLogger(__name__)


class CoqEnvironment(Environment):
    """Coq 8.16 through ``coqtop -emacs``.

    ``tactic_timeout`` (seconds) bounds each tactic; ``memory_limit_mb`` caps each coqtop's
    address space (``None``: no cap); ``max_restarts`` is how many consecutive coqtop restarts a
    session attempts before giving up with :class:`EnvironmentFailure`; ``sentence_timeout``
    bounds each sentence of a file prefix; ``elide_proofs`` replays earlier lemmas of a file as
    ``Admitted`` when opening (see :func:`prover.coq.context.file_context`); ``max_idle`` is how
    many idle coqtops are kept for reuse; ``verify_timeout`` bounds the final check (``coqc`` and
    ``coqchk``), and each sentence of the checked proof gets ``verify_sentence_timeout`` seconds
    (default: three times the longest any step could take in the search -- ``tactic_timeout``, or
    ``hammer_timeout`` with ``"hammer"`` -- as slack for a loaded machine). The limits default to
    :data:`prover.defaults.RUN`'s, those of the command line.

    ``additions`` names context additions (:data:`prover.coq.additions.ADDITIONS`: ``"hammer"``,
    ``"hammer-tactics"``, ``"lia"``...) loaded right before each theorem's statement unless the leak
    guard refuses them for that theorem; they are part of every proof found (verified and printed
    with it). One that Coq refuses (library not installed) is left out with a warning, and listed
    in :attr:`missing_additions`.

    ``project`` (``coq-stdlib``, ``coq-lib:NAME`` or a project directory, with ``project_flags``
    when it has no ``_CoqProject``; :func:`prover.coq.project.load_project`) is where
    :meth:`theorem` looks names up. A theorem of another project (:attr:`CoqFields.project`, set by its
    index) is opened in its own project all the same, so one environment serves any benchmark. With
    ``"hammer"``, ``hammer`` gets ``hammer_timeout`` seconds
    (half of them for the ATPs; a search may give one call more, :class:`search_tree.budget.Reserve`)
    and a found proof's ``hammer`` steps are rewritten to the reconstruction tactics it printed
    (:mod:`prover.coq.hammer`). ``tactic_limits`` gives tactics by their first word a shorter
    limit than ``tactic_timeout`` (``{"firstorder": 2}``): the expensive ones, which otherwise
    spend a failing search's time in timeouts. ``hammer_strategies`` is how many ATP strategies a
    ``hammer`` call runs at once (CoqHammer's ``GSMode``; None: CoqHammer's own, eight), each a
    forked process that shares the machine's cores with the others.
    """

    name = "coq"
    language = COQ

    def __init__(
        self,
        tactic_timeout: float = RUN.tactic_timeout,
        memory_limit_mb: int | None = 4096,
        max_restarts: int = 3,
        sentence_timeout: float = 120.0,
        elide_proofs: bool = True,
        max_idle: int = 1,
        verify_timeout: float = RUN.verify,
        verify_sentence_timeout: float | None = None,
        additions: tuple[str, ...] | list[str] | str = (),
        hammer_timeout: float = RUN.hammer,
        tactic_limits: Mapping[str, float] | None = None,
        hammer_strategies: int | None = None,
        index=None,
        project: str = "coq-stdlib",
        project_flags: list[str] | None = None,
    ) -> None:
        if tactic_timeout <= 0:
            raise ValueError(f"tactic_timeout must be positive, got {tactic_timeout!r}")
        if hammer_timeout <= 0:
            raise ValueError(f"hammer_timeout must be positive, got {hammer_timeout!r}")
        if hammer_strategies is not None and (isinstance(hammer_strategies, bool) or not isinstance(hammer_strategies, int)
                                              or hammer_strategies < 1):
            raise ValueError(f"hammer_strategies must be a positive whole number, got {hammer_strategies!r}")
        self.hammer_strategies = hammer_strategies
        self.tactic_limits = dict(tactic_limits or {})
        bad = {k: v for k, v in self.tactic_limits.items() if not isinstance(v, (int, float)) or v <= 0}
        if bad:
            raise ValueError(f"tactic_limits must map tactic names to positive seconds, got {bad!r}")
        self.additions, self.missing_additions = available(names(additions))
        self.hammer_timeout = hammer_timeout
        if "hammer" in self.additions:
            put_hammer_on_path()
        self._logs: dict[tuple[str, str], RewriteLog] = {}
        self._kept: dict[tuple[CoqContext, tuple[str, ...], str], Verification] = {}  # see _keep
        self._refused: str | None = None  # see refused_proof
        self._bare: set[tuple[str, str]] = set()  # theorems opened without additions (see _start)
        self.tactic_timeout = tactic_timeout
        self.memory_limit_mb = memory_limit_mb
        self.max_restarts = max_restarts
        self.sentence_timeout = sentence_timeout
        self.elide_proofs = elide_proofs
        self.max_idle = max_idle
        self.verify_timeout = verify_timeout
        self.verify_sentence_timeout = verify_sentence_timeout or 3 * max(
            tactic_timeout, hammer_timeout if "hammer" in self.additions else 0.0)
        from .project import load_project

        self.project = load_project(project, tuple(project_flags) if project_flags else None)
        self._indexes = {} if index is None else {index.project.ref()["spec"]: index}
        self._idle: list[Worker] = []
        self._busy: list[Worker] = []

    @staticmethod
    def default_corpus_path(options: dict | None = None, theorems: Sequence[Theorem] = ()) -> str:
        """The premise corpus a retriever uses when given none: that of the project being proved
        (:func:`run_project`; its files and the stdlib files they require), written once into the
        cache directory (:func:`prover.coq.corpus.default_corpus_path`), so a project's own lemmas
        are retrieved."""
        from .corpus import default_corpus_path

        return str(default_corpus_path(run_project(options or {}, theorems)))

    @staticmethod
    def default_traces(options: dict | None = None, theorems: Sequence[Theorem] = ()) -> list[str] | None:
        """The traced proofs a learned generator given none learns from (kNN, proof retrieval):
        None (the stdlib's, its own default) for the stdlib; for a project (:func:`run_project`),
        the stdlib's, those of the installed libraries its files require that are traced here
        (:func:`prover.coq.tracer.library_traces`: a library's idiom is its users'), and, once
        traced (by ``eval`` or ``prove`` on first use, :mod:`prover.coq.first_trace`, or by
        ``dojo-prover trace --project``), the project's own, because a project's earlier proofs are
        the ones most like its next (Tactician learns from them).
        What is not traced is left out silently: this is asked while a run is configured, and
        :meth:`missing_traces` says what is missing once the run starts searching."""
        from .tracer import library_traces, traced_data_dir

        project = run_project(options or {}, theorems)
        stdlib = [str(traced_data_dir())] if _stdlib_traced() else []
        if project.is_stdlib:
            return None if stdlib else []
        below = [*stdlib, *map(str, library_traces(project))]
        own = traced_data_dir(project)
        if not _own_traced(project):
            return None if below == [str(traced_data_dir())] else below
        return [*below, str(own)]

    @staticmethod
    def missing_traces(options: dict | None = None, theorems: Sequence[Theorem] = ()) -> list[str]:
        """What :meth:`default_traces` leaves out because it is not traced here, one line each
        (the stdlib's traces; a project's own), with the command that traces it."""
        project = run_project(options or {}, theorems)
        out = []
        if not _stdlib_traced():
            out.append("the Coq stdlib is not traced here, so kNN and proof retrieval are left out of the "
                       "default prover; run `dojo-prover trace --env coq` once to enable them")
        if not project.is_stdlib and not _own_traced(project):
            out.append(f"Coq project {project.name} is not traced, so kNN and proof retrieval learn from the "
                       "proofs of the stdlib and of the libraries it requires only; run `dojo-prover trace "
                       f"--env coq --project {project.ref()['spec']}` once to learn from its own")
        return out

    @staticmethod
    def run_notes(options: dict) -> dict:
        """For a run's config.json: the requested context additions that are not installed here."""
        missing = available(names(options.get("additions")))[1]
        return {"missing_additions": missing} if missing else {}

    @property
    def index(self):
        """The index of this environment's project (:class:`prover.coq.index.CoqIndex`), loaded on first use."""
        return self._index_of(self.project.ref())

    def _index_of(self, ref: dict | None):
        """The index of the project ``ref`` names (None: the stdlib), built (``.vo`` included) once."""
        from .project import load_project_ref
        from .build import project_index

        project = load_project_ref(ref)
        if project.spec not in self._indexes:
            self._indexes[project.spec] = project_index(project, progress=False)
        return self._indexes[project.spec]

    def theorem(self, name: str) -> Theorem:
        """The theorem of this environment's project called ``name``; :class:`TheoremNotFound` lists close matches."""
        return self.index.theorem(name)

    def context(self, theorem: Theorem) -> CoqContext:
        """Where ``theorem`` is opened: its ad-hoc prelude, or its stdlib file up to itself, with
        the additions offered for it right before the statement (reopened where they load its
        own module: :mod:`prover.coq.reopened`)."""
        return self._with(theorem, self._offered(theorem))

    def _with(self, theorem: Theorem, chosen: Sequence[str]) -> CoqContext:
        """``theorem``'s context with the additions ``chosen``, reopened if one loads its module."""
        bare = self._bare_context(theorem)
        context = with_additions(bare, self._sentences(theorem, chosen))
        if not reopens(chosen, bare.module):
            return context
        withheld = hammer_filter(tuple(chosen), bare.module) if "hammer" in chosen else ()
        return replace(reopen(context), prefix=context.prefix + withheld)  # coqtop's only: it guides hammer

    def _bare_context(self, theorem: Theorem) -> CoqContext:
        """``theorem``'s context without any addition."""
        fields = CoqFields.of(theorem)
        if fields.prelude is not None:
            return adhoc_context(theorem)
        index = self.index if fields.project is None else self._index_of(fields.project)
        if fields.offset is None:  # e.g. a Theorem read back from a results file
            found = index.theorem(fields.qualified_name or theorem.full_name)
            if theorem.file_path and found.file_path != theorem.file_path:
                raise ValueError(f"{theorem.full_name!r} is in {found.file_path}, not {theorem.file_path}")
            theorem = found
        return file_context(theorem, index, self.elide_proofs)

    def _offered(self, theorem: Theorem) -> tuple[str, ...]:
        """The additions loaded for ``theorem``: those offered, none where they broke its statement."""
        return () if (theorem.file_path, theorem.full_name) in self._bare else offered(self.additions, theorem)

    def _sentences(self, theorem: Theorem, chosen: Sequence[str] | None = None) -> tuple[str, ...]:
        """The sentences of the additions offered for ``theorem``, or of the ``chosen`` ones (the
        ATP limit is not among them: every ``hammer`` step sets its own, :class:`HammerSession`)."""
        return tuple(s for name in (self._offered(theorem) if chosen is None else chosen)
                     for s in addition(name).sentences)

    @contextmanager
    def open(self, theorem: Theorem) -> Iterator[tuple[CoqSession, TacticState]]:
        session, worker, init = self._start(theorem)
        try:
            yield session, init
        finally:
            self._give_back(worker, reusable=True)

    def _start(self, theorem: Theorem) -> tuple[CoqSession, Worker, TacticState]:
        """A started session on ``theorem``. Additions loaded right before a statement can change
        how it parses (a library's notations shadow the file's: ``==`` in setoid_ring); a statement
        that coqtop rejects with additions is opened again without them, with a warning."""
        context = self.context(theorem)
        worker = self._take(context)
        self._kept, self._refused = {}, None
        if "hammer" in self._offered(theorem):
            hammer = HammerSession(worker, context, self.tactic_timeout, self.max_restarts, self.hammer_timeout,
                                   self.tactic_limits, self.hammer_strategies)
            self._logs = {(context.key, context.statement): hammer.log}  # verify follows the search
            session: CoqSession = hammer
        else:
            session = CoqSession(worker, context, self.tactic_timeout, self.max_restarts, self.tactic_limits)
        session.finish_check = functools.partial(self._finish_refusal, theorem, compiled_module(context) is not None)
        try:
            return session, worker, session.start()
        except BaseException as exc:
            self._give_back(worker, reusable=False)
            if not (isinstance(exc, ValueError) and context.additions and "rejected the statement" in str(exc)):
                raise
        dropped, key = ", ".join(self._offered(theorem)), (theorem.file_path, theorem.full_name)
        self._bare.add(key)
        try:
            started = self._start(theorem)
        except ValueError:  # rejected without the additions too: the statement's own fault
            self._bare.discard(key)
            raise
        message = f"{theorem.full_name}: coqtop rejects its statement after the context additions {dropped}; opened without them"
        if self._installed(theorem):  # a fact about a library the user did not write, not about their input
            _log.info(message)
        else:
            warnings.warn(message, RuntimeWarning, stacklevel=4)
        return started

    def _installed(self, theorem: Theorem) -> bool:
        """Whether ``theorem`` comes from the stdlib or an installed library (not a project of the
        user's, nor a statement they gave)."""
        from .project import load_project_ref

        fields = CoqFields.of(theorem)
        return fields.prelude is None and load_project_ref(fields.project).kind != "project"

    def _finish_refusal(self, theorem: Theorem, reopened: bool, proof: Proof) -> str | None:
        """Why the search must not end with ``proof``, which it has just finished, or None. Four
        kinds of proof are checked at once by the final check itself (:meth:`verify`'s checks, whose
        verdicts the final check then takes instead of checking again: :meth:`_keep`), so that the
        search refuses them exactly when that check would and goes on, where ending on them would
        lose the rest of its time:

        * one found in ``theorem``'s *reopened* context: refused by the leak check (its other
          verdicts are left to the final check). A proof that needs no addition is checked in the
          theorem's own context first, where no compiled copy is loaded and nothing can leak. Not
          where the leak check could not run (:data:`prover.coq.verify.LEAK_UNCHECKED`: its
          dependency graphs unreadable, coq-dpdgraph missing or broken): every other proof would
          meet the same, so the search ends on this one and the final check says why, for a
          fixpoint too (coqc and coqchk accepted its guard before the leak check ran);
        * one that builds a fixpoint (``fix``, ``cofix``): Coq checks a fixpoint's guard only when
          the proof is closed, so ``fix f 1. assumption.`` (``f`` applied to the goal's own
          argument) "finishes" every goal of the right shape. In the stdlib's val split, searches
          ended on such proofs, rejected, with most of their time left;
        * any proof of a theorem of the user's project or statement (not the stdlib's nor an
          installed library's: :meth:`_installed`), refused for what it assumes
          (:data:`prover.coq.verify.ASSUMES_REFUSED`): ``auto`` through a ``Hint Resolve`` to an
          admitted lemma, ``hammer`` citing one, close the goal before an honest proof is tried,
          and fill-admitted exists to replace exactly those lemmas. Not where the refusal is one
          no proof can escape (:func:`prover.coq.verify.unavoidable`: a prelude's axiom, refused
          whether used or not; a project's axiom the statement itself needs), which ends the
          search, the final check saying why;
        * one of a lemma in a section (:attr:`CoqFields.in_section`): refused where it uses a section
          variable the declared lemma does not abstract over
          (:data:`prover.coq.verify.SECTION_VARIABLES_REFUSED`): ``auto`` or ``intuition`` reach for
          every hypothesis in the context, and in the stdlib's test split searches ended at once on
          such proofs (``SReqe_Reqe`` through ``Rsth``) where another proof needs none.

        The check runs inside the step, off the search's clock (``checked_seconds`` of the result,
        :meth:`search_tree.budget.Meter.run_tac`: it is the final check's work, done early), and a
        refusal no proof of a section lemma can escape (an admitted one
        under ``Unset Keep Admitted Variables`` that needs a hypothesis) spends the search's time,
        and up to as much again in checks, refusing proofs where it used to end at once, unproved
        either way.

        Any of these refused for the universe relations it adds
        (:data:`prover.coq.final_universes.UNIVERSES_REFUSED`) is refused too: another proof may add
        none (``exists unit`` where ``exists A`` related ``A``'s universe to ``B``'s).
        """
        fixpoint = any(_FIXPOINT.search(tactic) for tactic in proof_tactics(proof))
        user = not self._installed(theorem)
        in_section = CoqFields.of(theorem).in_section
        if not (reopened or fixpoint or user or in_section):
            return None
        verdict = self._verify(theorem, proof, self._keep)
        if verdict.ok or verdict.message.startswith(LEAK_UNCHECKED):
            return None
        assumes = user and verdict.message.startswith(ASSUMES_REFUSED) and not unavoidable(verdict.message)
        refused = (LEAK_REFUSED, UNIVERSES_REFUSED, SECTION_VARIABLES_REFUSED)
        if not (fixpoint or assumes or verdict.message.startswith(refused)):
            return None
        self._refused = verdict.message
        return verdict.message

    def refused_proof(self, theorem: Theorem) -> str | None:
        """Why :meth:`_finish_refusal` refused the last finished proof of the theorem opened last."""
        return self._refused

    def render(self, theorem: Theorem, proof: Proof) -> str:
        return annotate(self.context(theorem), render_proof(proof))

    def verify(self, theorem: Theorem, proof: Proof) -> Verification:
        """Re-check ``proof`` (:func:`prover.coq.verify.verify_proof`), its ``hammer`` steps first
        rewritten to the reconstruction tactics they printed in this environment's last search;
        first with only the context additions its tactics need (:func:`prover.coq.additions.needed`:
        none for most proofs), so that the proof is checked and printed with what a user must add
        and no more, then, if that fails, with all of them."""
        return self._verify(theorem, proof, self._handed)

    def _verify(self, theorem: Theorem, proof: Proof,
                check: Callable[[CoqContext, Proof], Verification]) -> Verification:
        """:meth:`verify`, with each check of the rewritten ``proof`` in one of its two contexts made by
        ``check``: a new one whose verdict is kept (:meth:`_keep`) or one that takes a kept verdict
        (:meth:`_handed`)."""
        context = self.context(theorem)
        log = self._logs.get((context.key, context.statement), RewriteLog())
        try:
            proof = log.rewrite(proof)
        except ValueError as exc:
            return Verification(False, str(exc), render_proof(proof))
        if context.additions:
            smaller = self._with(theorem, needed(self._offered(theorem), proof_tactics(proof), theorem))
            if smaller.additions != context.additions:
                first = check(smaller, proof)
                if first.ok:
                    return first
        return check(context, proof)

    def _keep(self, context: CoqContext, proof: Proof) -> Verification:
        """Check ``proof`` inside the search (:meth:`_finish_refusal`) and keep the verdict for the
        final check: the proof the search ends with is the one it reports, and checking it again
        would run the same coqc and coqchk on the same input (for a reopened theorem, on every
        proof found). Kept until that check takes it (:meth:`_handed`) or the next theorem opens."""
        verdict = verify_proof(context, proof, self.verify_timeout, self.verify_sentence_timeout)
        key = _check_key(context, proof)
        if key is not None:
            self._kept[key] = verdict
        return verdict

    def _handed(self, context: CoqContext, proof: Proof) -> Verification:
        """The verdict :meth:`_keep` kept for exactly this check, taken once, or a new check."""
        key = _check_key(context, proof)
        kept = None if key is None else self._kept.pop(key, None)
        if kept is not None:
            return kept
        return verify_proof(context, proof, self.verify_timeout, self.verify_sentence_timeout)

    @property
    def coqtop_pids(self) -> list[int]:
        """Pids of this environment's live coqtop processes (in use first), for monitoring and tests."""
        return [pid for w in self._busy + self._idle
                if w.coqtop is not None and w.coqtop.alive and (pid := w.coqtop.pid) is not None]

    def close(self) -> None:
        """Kill every coqtop of this environment (a session still open restarts its own on next use)."""
        for worker in self._idle + self._busy:
            worker.close()
        self._idle.clear()

    def __enter__(self) -> CoqEnvironment:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _take(self, context: CoqContext) -> Worker:
        """An idle worker that already replayed this file if any, else any idle one, else a new one."""
        worker = next((w for w in self._idle if w.key == context.key), self._idle[-1] if self._idle else None)
        if worker is None:
            worker = Worker(self.memory_limit_mb, self.sentence_timeout)
        else:
            self._idle.remove(worker)
        self._busy.append(worker)
        return worker

    def _give_back(self, worker: Worker, reusable: bool) -> None:
        self._busy.remove(worker)
        if not reusable or worker.coqtop is None or not worker.coqtop.alive:
            worker.close()
            return
        self._idle.append(worker)
        while len(self._idle) > self.max_idle:
            self._idle.pop(0).close()


def _check_key(context: CoqContext, proof: Proof) -> tuple[CoqContext, tuple[str, ...], str] | None:
    """What a check's verdict depends on: the whole context, the proof's tactics and the script they
    render to (None where the proof does not render: the check itself says why)."""
    try:
        return context, tuple(proof_tactics(proof)), render_proof(proof)
    except ValueError:
        return None


def run_project(options: dict, theorems: Sequence[Theorem] = ()) -> CoqProject:
    """The project a run proves in: the ``project`` option (with ``project_flags``) when given, else
    the one every theorem belongs to (:attr:`CoqFields.project`, as its index set it); the stdlib when
    they belong to it or to several projects (no corpus or trace holds several projects)."""
    from .project import load_project, load_project_ref

    if "project" in options:
        flags = options.get("project_flags")
        return load_project(options["project"], tuple(flags) if flags else None)
    refs = {json.dumps(CoqFields.of(t).project, sort_keys=True) for t in theorems}
    if len(refs) > 1:
        warnings.warn(f"the theorems belong to {len(refs)} Coq projects: the default corpus and traces are the "
                      "stdlib's (give the retriever a corpus option to retrieve a project's lemmas)",
                      RuntimeWarning, stacklevel=2)
    return load_project_ref(json.loads(refs.pop()) if len(refs) == 1 else None)


def _stdlib_traced() -> bool:
    """Whether the stdlib's traced proofs are here (what kNN and proof retrieval learn from)."""
    from .tracer import is_traced, traced_data_dir

    return is_traced(traced_data_dir())


def _own_traced(project: CoqProject) -> bool:
    """Whether ``project``'s own proofs are traced here (by ``trace --project``, or by ``eval``,
    ``prove`` or ``fill-admitted`` on first use; a first trace stopped before its split files, which
    leaves its corpus, does not count: :func:`prover.coq.tracer.is_traced`)."""
    from .tracer import is_traced, traced_data_dir

    return is_traced(traced_data_dir(project))
