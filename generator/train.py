"""Train the policy-value model with Lightning's CLI: ``python -m generator.train fit --config ...``
(also ``dojo-prover train-policy fit --config ...``).

Everything is configured in YAML (``generator/configs/*.yaml``) and can be overridden by flags
(``--trainer.max_steps 100``, ``--data.train_path traces/coq``). A run directory (``--run_dir``)
holds:

* ``checkpoints/``: Lightning checkpoints, ``last.ckpt`` among them; with ``ckpt_path: last`` (the
  shipped configs set it) a rerun resumes where the previous one stopped;
* ``hf/``: the Hugging Face export (:meth:`PolicyValueModel.save_hf`), rewritten after every
  validation and at the end, ready for ``build_generator("hf", model=".../hf")`` and
  :func:`generator.policy_value.load_value_function`;
* ``csv/`` (and ``tensorboard/`` when TensorBoard is installed): the logged losses.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI
from lightning.pytorch.loggers import CSVLogger, Logger, TensorBoardLogger

from generator.data import TracedDataModule
from generator.policy_value import PolicyValueModel
from search_tree.errors import UserError, one_line
from search_tree.safe_files import read_regular


class ExportHF(L.Callback):
    """Writes the model in Hugging Face format to ``dirpath`` after each validation and at the end."""

    def __init__(self, dirpath: str) -> None:
        self.dirpath = dirpath

    def _export(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.is_global_zero and isinstance(pl_module, PolicyValueModel):
            pl_module.save_hf(self.dirpath)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not trainer.sanity_checking:
            self._export(trainer, pl_module)

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._export(trainer, pl_module)


def default_loggers(run_dir: str) -> list[Logger]:
    """CSV always; TensorBoard too when it is installed."""
    loggers: list[Logger] = [CSVLogger(run_dir, name="csv")]
    if importlib.util.find_spec("tensorboard") or importlib.util.find_spec("tensorboardX"):
        loggers.append(TensorBoardLogger(run_dir, name="tensorboard"))
    return loggers


class PolicyCLI(LightningCLI):
    """LightningCLI for :class:`PolicyValueModel` on :class:`TracedDataModule`, with a run directory."""

    def __init__(self, args: list[str] | None = None, run: bool = True) -> None:
        super().__init__(
            PolicyValueModel, TracedDataModule, args=args, run=run,
            save_config_kwargs={"overwrite": True},
            # a bad option or config is an ArgumentError for main() to make one line, not ~90 lines of usage
            parser_kwargs={"description": __doc__, "exit_on_error": False},
        )

    def add_arguments_to_parser(self, parser: LightningArgumentParser) -> None:
        parser.add_argument("--run_dir", type=str, default="runs/policy", help="checkpoints, HF export and logs")
        parser.add_lightning_class_args(ModelCheckpoint, "checkpoint")
        parser.set_defaults({"checkpoint.save_last": True})
        parser.add_lightning_class_args(ExportHF, "export")
        parser.link_arguments("run_dir", "checkpoint.dirpath", compute_fn=lambda d: str(Path(d) / "checkpoints"))
        parser.link_arguments("run_dir", "export.dirpath", compute_fn=lambda d: str(Path(d) / "hf"))
        parser.link_arguments("run_dir", "trainer.default_root_dir")

    def instantiate_trainer(self, **kwargs: Any) -> L.Trainer:
        if self._get(self.config_init, "trainer").get("logger") in (None, True):
            kwargs["logger"] = default_loggers(self._get(self.config_init, "run_dir"))
        return super().instantiate_trainer(**kwargs)


def check_config_files(args: list[str]) -> None:
    """Refuse a ``--config``/``-c`` that names a FIFO, a device or a directory (jsonargparse would
    open it and wait for a writer forever) with one line; a link to a file is the user's own choice
    and is followed. A value that names no file is left to jsonargparse (it may be inline YAML)."""
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in ("--config", "-c") and (eq or i + 1 < len(args)):
            value = value if eq else args[i + 1]
            try:
                read_regular(Path(value).resolve())  # UnsafePath, a UserError naming it, if not a regular file
            except UserError:
                raise
            except OSError as exc:
                raise UserError(f"--config {value}: cannot read it: {exc.strerror or exc}") from None


def main(args: list[str] | None = None) -> PolicyCLI:
    """Run the CLI on ``args`` (default: ``sys.argv[1:]``), e.g. ``["fit", "--config", "tiny.yaml"]``.
    A bad option, config file or value is a :class:`UserError`: one line, what jsonargparse found."""
    argv = sys.argv
    try:
        check_config_files(sys.argv[1:] if args is None else args)
        if args is None:
            return PolicyCLI()
        sys.argv = sys.argv[:1]  # LightningCLI reads the program name (only) from sys.argv
        return PolicyCLI(args=args)
    except argparse.ArgumentError as exc:
        raise UserError(one_line(exc)[:400]) from None
    finally:
        sys.argv = argv


if __name__ == "__main__":
    try:
        main()
    except UserError as exc:
        sys.exit(f"error: {exc}")
