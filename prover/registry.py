"""Registries that turn small, picklable specs into environments, retrievers, generators and provers.

A distributed run cannot ship a live Coq process or a GPU model to a Ray actor; it ships a
:class:`ComponentSpec` (a name and JSON options) and every worker builds its own components from
it. The same specs are what ``config.json`` records, so a run directory says exactly what ran.

Every table is a :class:`search_tree.registry.Registry` of ``"module:attribute"`` strings imported
only when built, so that importing this module loads neither torch nor ray nor a backend, and an
unknown name raises :class:`~search_tree.registry.UnknownName` with close matches. The tables:

* environments: ``prover.backends.ENVIRONMENTS``, one per backend of :mod:`prover.backends`
  (``coq`` -> ``prover.coq.env:CoqEnvironment``, ``leandojo``, ``synthetic``), or any by import path;
* provers: :data:`SEARCHES` (``best_first``, ``mcts``), built as
  ``cls(tac_gen, **options)``; an option whose parameter is a dataclass may be given as the dict
  of its fields, as ``config.json`` holds it: ``mcts``'s ``config``, and a search's ``value`` when
  it is a :class:`generator.hf.ValueHead` (``{"checkpoint": PATH}``: the value head of a
  policy-value checkpoint, loaded by the prover itself, so that ``search_tree`` stays free of torch);
* generators: ``generator.registry.GENERATORS`` (``fixed``, ``template``, ``knn``, ``hf``, and the
  backends' own: ``automation``, ``synthetic``, ``coq_hammer``, ``coq_default`` — the default Coq
  prover's generator, whose whole preset, environment and search included, is
  :func:`prover.coq.presets.default_config`); a generator whose factory has a ``retriever``
  parameter receives the run's retriever there (a factory without one given a retriever is an error);
* retrievers: ``none``, or ``retrieval.base.RETRIEVERS`` (``bm25``, ``mepo``, ``sine``, ``ps2``,
  ``knn``, ``fusion``), or a factory by import path (the default Coq prover's is
  ``prover.coq.default_generator:coq_premises``), built by
  ``retrieval.base.build_retriever(name, corpus, **options)`` where the ``corpus`` option is the
  path of a ``corpus.jsonl`` (loaded with ``Corpus.from_jsonl``). One whose factory's ``traces``
  has a default is given the environment's default traces, as a learned generator is.

A component defined outside the package needs no registration: its spec names it by import path,
``ComponentSpec("mypkg.module:MyGenerator", {...})``, and every worker imports it from there.

In one process a generator or a retriever may also be given as a built object instead of a spec
(``ProverConfig(..., generator=my_generator)``); a configuration that must travel (to Ray
workers, or into a run's ``config.json``) takes specs only, and :func:`require_specs` says so.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import typing
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from generator.base import TacticGenerator
from generator.hf import ValueHead
from generator.registry import GENERATORS
from prover.backends import ENVIRONMENTS, language_for, language_of, modules_of, registered_outside
from search_tree import Environment, Theorem
from search_tree.errors import UserError
from search_tree.language import Language
from search_tree.registry import (
    IMPORT_PATH,
    Registry,
    RegistryError,
    UnknownName,
    accepts,
    load_target,
    parameter,
)


@dataclass(frozen=True)
class ComponentSpec:
    """A component by registry name plus keyword options (JSON-serialisable, hence picklable)."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The spec as JSON; an option given as a dataclass (an ``MCTSConfig``, a
        :class:`~generator.hf.ValueHead`) is written as its fields, which the registry makes into
        the dataclass again when it builds the component (:func:`_coerce`). JSON's own values only
        (a tuple is a list), so that it equals what a run's ``config.json`` gives back."""
        options = {k: dataclasses.asdict(v) if dataclasses.is_dataclass(v) and not isinstance(v, type) else v
                   for k, v in self.options.items()}
        return {"name": self.name, "options": json.loads(json.dumps(options))}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ComponentSpec:
        return cls(data["name"], dict(data.get("options", {})))


@dataclass(frozen=True)
class ProverConfig:
    """Everything a worker needs to build its environment, retriever, generator and prover.

    ``generator`` and ``retriever`` may be built objects for a run in this process (see the module
    docstring); everything else is a spec."""

    env: ComponentSpec
    prover: ComponentSpec
    generator: ComponentSpec | TacticGenerator
    retriever: ComponentSpec | Any = ComponentSpec("none")

    def to_json(self) -> dict[str, Any]:
        require_specs(self, "a configuration written as JSON")
        return {k: getattr(self, k).to_json() for k in ("env", "prover", "generator", "retriever")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProverConfig:
        return cls(**{k: ComponentSpec.from_json(v) for k, v in data.items()})


class NotASpec(UserError, TypeError):
    """A component given as a built object where the configuration must travel as specs."""


def require_specs(config: ProverConfig, where: str) -> None:
    """Fail in one line if ``where`` (Ray workers, a run directory) gets a component as an object:
    only a :class:`ComponentSpec` can be sent to another process or written down."""
    for role in ("env", "prover", "generator", "retriever"):
        value = getattr(config, role)
        if not isinstance(value, ComponentSpec):
            raise NotASpec(f"{where} needs the {role} as a ComponentSpec (a registry name or 'module:attribute' "
                           f"with JSON options), not a {type(value).__name__} object: an object serves a run "
                           "in this process only (one worker, no Ray)")


def outside_modules(config: ProverConfig) -> list[str]:
    """The top-level modules of every component ``config`` names by import path, nested specs
    (fused ``members``) included, and of every backend registered outside the package (it is sent
    to the workers, :func:`prover.backends.registered_outside`): what a worker must import besides
    the package's own."""
    found = [m for b in registered_outside() for m in modules_of(b)]

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            name = value.get("name")
            if isinstance(name, str) and IMPORT_PATH.fullmatch(name):
                found.append(name.partition(":")[0].split(".")[0])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for role in ("env", "prover", "generator", "retriever"):
        spec = getattr(config, role)
        if isinstance(spec, ComponentSpec):
            walk(spec.to_json())
    return list(dict.fromkeys(found))


SEARCHES = Registry("search", import_paths=True, targets={
    "best_first": "prover.proof_search:BestFirstSearchProver",
    "mcts": "prover.proof_search:MCTSProver",
})


def generators() -> Registry:
    """Every generator name and its ``"module:attribute"`` target."""
    return GENERATORS


def retrievers() -> Registry:
    """Every retriever name (but ``none``): ``retrieval.base.RETRIEVERS``, loaded only when asked
    for, because the retrieval package imports numpy."""
    return load_target("retrieval.base:RETRIEVERS")


def build_env(spec: ComponentSpec) -> Environment:
    return ENVIRONMENTS.load(spec.name)(**spec.options)


def _check_retriever(name: str) -> None:
    if name != "none" and name not in retrievers():
        raise UnknownName("retriever", name, ["none", *retrievers()])


def build_retriever(spec: ComponentSpec | Any, language: Language | None = None) -> Any | None:
    """The retriever named by ``spec`` (or ``spec`` itself, a built retriever); ``none`` means the
    generator works without premises. ``language`` is its corpus's (the run's backend's), which
    symbol-based retrievers need; without it, that of the backend whose file suffix the corpus's
    files have."""
    if not isinstance(spec, ComponentSpec):
        return spec
    _check_retriever(spec.name)
    if spec.name == "none":
        return None
    options = dict(spec.options)
    if "corpus" not in options:
        raise ValueError(f"retriever {spec.name!r} needs a corpus option: the path of a corpus.jsonl "
                         "(only environments with a default_corpus_path() supply one)")
    corpus = load_target("retrieval.corpus:Corpus.from_jsonl")(options.pop("corpus"))
    if language is None:
        language = language_of(corpus.files)
    corpus = corpus.in_language(language)
    return load_target("retrieval.base:build_retriever")(spec.name, corpus, **options)


def build_generator(spec: ComponentSpec | TacticGenerator, retriever: Any | None = None,
                    language: Language | None = None) -> TacticGenerator:
    """The generator ``spec`` names, given ``retriever`` if its factory has a ``retriever``
    parameter (a generator that cannot use one is refused a retriever, in one line) and the run's
    ``language`` (its backend's) if it has a ``language`` one (kNN reads the traced tactics' names
    with it; one that needs it and gets none is refused in one line); a built generator is returned
    as it is, and brings its own retriever."""
    if not isinstance(spec, ComponentSpec):
        if retriever is not None:
            raise UserError(f"a generator given as an object ({type(spec).__name__}) brings its own retriever: "
                             "leave the configuration's retriever at 'none'")
        return spec
    factory = GENERATORS.load(spec.name)
    options = dict(spec.options)
    if retriever is not None:
        if not accepts(factory, "retriever"):
            raise RegistryError(f"generator {spec.name!r} takes no retriever (its factory has no retriever "
                                "parameter): give the retriever 'none', or a generator that uses premises")
        options["retriever"] = retriever
    takes_language = parameter(factory, "language")
    if takes_language is not None and language is not None:
        options["language"] = language
    elif takes_language is not None and takes_language.default is inspect.Parameter.empty:
        raise RegistryError(f"generator {spec.name!r} reads tactics in its backend's language, and the run's "
                            "environment has none")
    return factory(**options)


def build_run(config: ProverConfig) -> tuple[Environment, Any]:
    """``(env, prover)`` built from ``config`` with its defaults (:func:`with_defaults`) through the
    registries, the way an ``eval`` worker builds them; the caller enters and closes ``env``."""
    config = with_defaults(config)
    return build_env(config.env), prover_from(config)


def prover_from(config: ProverConfig) -> Any:
    """The prover of ``config`` (its search over its generator and retriever, with its defaults),
    without the environment: for a caller that searches in an environment it opened itself
    (``prover_from(baseline_config(None)).search(env, theorem)``)."""
    config = with_defaults(config)
    language = language_for(config.env.name)
    retriever = build_retriever(config.retriever, language)
    return build_prover(config.prover, build_generator(config.generator, retriever, language))


def _hints(factory: Callable[..., Any]) -> dict[str, Any]:
    """The parameter annotations of ``factory`` (a class: its ``__init__``'s), resolved; none where
    they cannot be resolved, so that its options pass through unchanged and unchecked."""
    try:
        return typing.get_type_hints(factory.__init__ if inspect.isclass(factory) else factory)
    except (NameError, TypeError):
        return {}


def _coerce(factory: Callable[..., Any], options: dict[str, Any]) -> dict[str, Any]:
    """JSON options made into what ``factory`` takes: a dict for a dataclass parameter becomes one."""
    hints = _hints(factory)
    out = dict(options)
    for name, value in options.items():
        if isinstance(value, dict):
            hint = hints.get(name)
            for candidate in (hint, *typing.get_args(hint)):
                if isinstance(candidate, type) and dataclasses.is_dataclass(candidate):
                    try:
                        out[name] = candidate(**value)
                    except TypeError as exc:  # a field it does not have, or one missing
                        fields = ", ".join(f.name for f in dataclasses.fields(candidate))
                        raise RegistryError(f"option {name}={json.dumps(value)}: a {candidate.__name__} "
                                            f"takes the fields {fields} ({exc})") from exc
                    break
    return out


_SCALARS = (bool, int, float, str, type(None))


def _check_scalars(factory: Callable[..., Any], options: dict[str, Any], part: str) -> None:
    """A :class:`RegistryError` naming the first of ``options`` whose parameter of ``factory`` is
    annotated with scalar types only (``float``, ``int | None``, ``str``) and whose value is of
    none of them (an ``int`` passes for a ``float``, a ``bool`` for neither), so that a mistyped
    ``--env-opt latency=abc`` is refused before a run starts rather than failing every search."""
    hints = _hints(factory)
    for name, value in options.items():
        hint = hints.get(name)
        allowed = typing.get_args(hint) or (hint,)
        if hint is None or not all(t in _SCALARS for t in allowed):
            continue
        ok = any(type(value) is t or (t is float and type(value) is int) for t in allowed)
        if not ok:
            names = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
            raise RegistryError(f"{part} option {name}={json.dumps(value)[:60]}: takes {names}")


def options_for_search(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The ``options`` of one search's spec that search ``name`` takes: a preset made for
    best-first search (its ``reserve``) run under MCTS keeps what both share (the budgets, the
    width, the value) and leaves the rest."""
    accepted = inspect.signature(SEARCHES.load(name)).parameters
    return {k: v for k, v in options.items() if k in accepted}


def build_prover(spec: ComponentSpec, tac_gen: TacticGenerator) -> Any:
    """A prover with ``.search(env, theorem, on_event=...)`` for ``spec`` (its dict options for
    dataclass parameters made into the dataclass: :func:`_coerce`)."""
    cls = SEARCHES.load(spec.name)
    return cls(tac_gen, **_coerce(cls, spec.options))


def _defaults(factory: Callable[..., Any]) -> dict[str, Any]:
    """The factory's keyword defaults that a spec's options may hold, as JSON gives them back (a
    tuple default is a list), so that a resumed run's options compare equal."""
    defaults = {}
    for name, param in inspect.signature(factory).parameters.items():
        if param.default is inspect.Parameter.empty or name in ("retriever", "language"):
            continue
        try:
            defaults[name] = json.loads(json.dumps(param.default))
        except TypeError:
            continue
    return defaults


def _with_defaults(spec: ComponentSpec, factory: Callable[..., Any] | None) -> ComponentSpec:
    """``spec`` with the factory's keyword defaults filled in, so that two specs that build the same
    component compare equal and a run's config.json records every setting, not only those given."""
    if factory is None or not isinstance(spec, ComponentSpec):
        return spec
    return ComponentSpec(spec.name, {**_defaults(factory), **spec.options})


def _expand_dataclass_options(spec: ComponentSpec) -> ComponentSpec:
    """A prover's dict options for dataclass parameters, with the dataclass's defaults filled in."""
    coerced = _coerce(SEARCHES.load(spec.name), spec.options)
    return ComponentSpec(spec.name, {k: (dataclasses.asdict(v) if dataclasses.is_dataclass(v) and not isinstance(v, type)
                                         else spec.options[k])
                                     for k, v in coerced.items()})


def _environment(env_name: str) -> Any | None:
    """Environment ``env_name``'s class, whose run hooks (:class:`search_tree.protocol.Environment`)
    supply defaults; None when the name is not registered."""
    return ENVIRONMENTS.load(env_name) if env_name in ENVIRONMENTS else None


def default_corpus(env_name: str, options: dict[str, Any] | None = None,
                   theorems: Sequence[Theorem] = ()) -> str | None:
    """The corpus path environment ``env_name`` supplies to a retriever given none (its class's
    ``default_corpus_path(options, theorems)``: for Coq, that of the project the environment's
    options or the run's theorems name), or None (LeanDojo: the option is required)."""
    environment = _environment(env_name)
    corpus = None if environment is None else environment.default_corpus_path(dict(options or {}), list(theorems))
    return None if corpus is None else str(corpus)


def _with_default_corpus(config: ProverConfig, theorems: Sequence[Theorem]) -> ProverConfig:
    """``config`` whose retriever has a ``corpus``: its own, else the environment's default."""
    if not isinstance(config.retriever, ComponentSpec) or config.retriever.name == "none" \
            or "corpus" in config.retriever.options:
        return config
    corpus = default_corpus(config.env.name, config.env.options, theorems)
    if corpus is None:
        return config
    return dataclasses.replace(config, retriever=ComponentSpec(config.retriever.name,
                                                               {**config.retriever.options, "corpus": corpus}))


def _learns_from_traces(generator: Any) -> TypeGuard[ComponentSpec]:
    """Whether ``generator`` is a spec of a registered generator that learns from traced proofs
    (its factory takes ``traces``)."""
    return (isinstance(generator, ComponentSpec) and generator.name in GENERATORS
            and "traces" in inspect.signature(GENERATORS.load(generator.name)).parameters)


def _learns_by_default(retriever: Any) -> TypeGuard[ComponentSpec]:
    """Whether ``retriever`` is a spec of a retriever that learns from traced proofs it finds by
    itself (its factory's ``traces`` has a default, as the Coq default's
    :func:`prover.coq.default_generator.coq_premises`); one whose ``traces`` is required (``knn``)
    learns from what its caller names."""
    if not isinstance(retriever, ComponentSpec) or retriever.name == "none":
        return False
    traces = parameter(retrievers().load(retriever.name), "traces")
    return traces is not None and traces.default is not inspect.Parameter.empty


def _with_default_traces(config: ProverConfig, theorems: Sequence[Theorem]) -> ProverConfig:
    """``config`` whose generator, if it learns from traced proofs (a ``traces`` option) and was
    given none, learns from those the environment names for the run (its class's
    ``default_traces(options, theorems)``: for a Coq project, the project's own beside the stdlib's),
    and so does its retriever if it learns from traces of its own finding (:func:`_learns_by_default`)."""
    wanted: dict[str, ComponentSpec] = {}
    if _learns_from_traces(config.generator) and "traces" not in config.generator.options:
        wanted["generator"] = config.generator
    if _learns_by_default(config.retriever) and "traces" not in config.retriever.options:
        wanted["retriever"] = config.retriever
    if not wanted:
        return config
    environment = _environment(config.env.name)
    traces = None if environment is None else environment.default_traces(dict(config.env.options), list(theorems))
    if traces is None:
        return config
    return dataclasses.replace(config, **{role: ComponentSpec(spec.name, {**spec.options, "traces": traces})
                                          for role, spec in wanted.items()})


def warn_missing_traces(config: ProverConfig, theorems: Sequence[Theorem]) -> None:
    """One warning for each thing the environment's default traces leave out here (its class's
    ``missing_traces``: for Coq, an untraced stdlib or project), if ``config``'s generator learns
    from those defaults (given no ``traces``, or the defaults :func:`with_defaults` filled in).
    Called where searching starts (:class:`prover.run.distributed.DistributedProver`, ``prove``),
    not where a run is configured: a run stopped by bad input before it searches says nothing
    about traces, and one that searches says it once, in the process that drives the workers.
    An environment option equal to its default is read as not given (with_defaults cannot tell
    them apart afterwards): for Coq, ``project=coq-stdlib`` on another project's theorems is
    then read as theirs, for this warning only."""
    generator = config.generator
    environment = _environment(config.env.name)
    if environment is None or not _learns_from_traces(generator):
        return
    # the environment's options as given: those :func:`with_defaults` filled in are left out, so that
    # the run's project is found as it was then (for Coq, from the theorems where no project is given)
    defaults = _defaults(environment)
    options = {k: v for k, v in config.env.options.items() if k not in defaults or defaults[k] != v}
    theorems = list(theorems)
    with warnings.catch_warnings():  # what configuring the run said (e.g. theorems of several projects) once only
        warnings.simplefilter("ignore")
        if "traces" in generator.options and generator.options["traces"] != environment.default_traces(options,
                                                                                                       theorems):
            return  # traces the caller chose
        missing = environment.missing_traces(options, theorems)
    for line in missing:
        warnings.warn(line, RuntimeWarning, stacklevel=2)


def with_defaults(config: ProverConfig, theorems: Sequence[Theorem] = ()) -> ProverConfig:
    """``config`` with every default option of its environment, prover and generator made explicit
    (and the environment's default corpus for a retriever given none, and its default traces for a
    learned generator given none, for the ``theorems`` to prove). Applying it again changes
    nothing, so every entry point (the command line, :class:`prover.run.distributed.DistributedProver`,
    :func:`prover.run.evaluation.run_evaluation`) applies it without asking whether it was. A
    generator or retriever given as an object is left as it is."""
    config = _with_default_traces(_with_default_corpus(config, theorems), theorems)
    generator, retriever = config.generator, config.retriever
    if isinstance(generator, ComponentSpec):
        generator = _with_defaults(generator, GENERATORS.load(generator.name))
    if isinstance(retriever, ComponentSpec):
        _check_retriever(retriever.name)
        retriever = _with_defaults(retriever, None if retriever.name == "none" else retrievers().load(retriever.name))
    return ProverConfig(_with_defaults(config.env, ENVIRONMENTS.load(config.env.name)),
                        _with_defaults(_expand_dataclass_options(config.prover), SEARCHES.load(config.prover.name)),
                        generator, retriever)


def check_names(config: ProverConfig) -> None:
    """Fail before any work starts if a component name is unknown, or an environment or search
    option has a type its parameter does not take (without building anything)."""
    _check_scalars(ENVIRONMENTS.load(config.env.name), config.env.options, "environment")
    _check_scalars(SEARCHES.load(config.prover.name), config.prover.options, "search")
    if isinstance(config.retriever, ComponentSpec):
        _check_retriever(config.retriever.name)
    if isinstance(config.generator, ComponentSpec) and GENERATORS[config.generator.name] == config.generator.name:
        GENERATORS.load(config.generator.name)  # an import path: is it there? (a table's names are, unimported)
    value = _coerce(SEARCHES.load(config.prover.name), config.prover.options).get("value")
    if isinstance(value, ValueHead):  # its files, not its weights: a missing one fails before any work
        value.check()
