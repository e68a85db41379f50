"""The settings of one fine-tuning run, checked before it starts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.models.transformers.training.truncation import STRATEGIES

DEVICES = ("auto", "cpu", "cuda", "mps")


@dataclass
class FineTuneSettings:
    learning_rate: float = 1e-4
    epochs: int = 4
    batch_size: int = 16
    max_length: int = 512
    truncation: str = "head_tail"  # "head" | "head_tail" | "middle"
    dropout: float = 0.1
    weight_decay: float = 0.0
    warmup_share: float = 0.0  # share of all steps with a rising learning rate
    seed: int = 20210401
    device: str = "auto"  # "auto" | "cpu" | "cuda" | "mps"
    mixed_precision: bool = True  # bf16 autocast on CUDA when supported, else fp16 + GradScaler; on CPU: checked
    # bfloat16 answers only (fast_inference.py), never while training
    max_grad_norm: float = 1.0  # gradient clipping as in Hugging Face's Trainer; 0 switches it off

    @classmethod
    def from_options(cls, options: Mapping[str, Any], point: Mapping[str, Any], seed: int) -> FineTuneSettings:
        """The settings of one training run of a study's Transformer: its options with every default
        filled in (``options.full_options``), one point of its grid (learning rate and epochs) and the
        run's seed."""
        return cls(
            learning_rate=point["learning_rate"], epochs=point["epochs"], batch_size=options["batch_size"],
            max_length=options["max_length"], truncation=options["truncation"], dropout=options["dropout"],
            seed=seed, device=options["device"], mixed_precision=options["mixed_precision"],
        )  # fmt: skip

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> FineTuneSettings:
        """The settings a saved model records, each of the type its default has (a whole number
        where one is needed, no text for a number); unknown names are left out (another TextLab
        version) and missing ones take their default. ValueError says which one is wrong;
        :meth:`check` then tests the ranges."""
        defaults, values = cls(), {}
        for setting in fields(cls):
            if setting.name not in saved:
                continue
            value, default = saved[setting.name], getattr(defaults, setting.name)
            if isinstance(default, bool):
                fits = isinstance(value, bool)
            elif isinstance(default, int):
                fits = isinstance(value, int) and not isinstance(value, bool)
            elif isinstance(default, float):
                fits = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
                value = float(value) if fits else value
            else:
                fits = isinstance(value, str)
            if not fits:
                kind = {bool: "true or false", int: "a whole number", float: "a number", str: "a word"}[type(default)]
                shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "…"
                raise ValueError(f"{setting.name} is {shown}, not {kind}")
            values[setting.name] = value
        settings = cls(**values)
        settings.check()
        return settings

    def check(self) -> None:
        problems = []
        if not self.learning_rate > 0:
            problems.append("the learning rate must be above 0")
        if self.epochs < 1:
            problems.append("there must be at least 1 epoch")
        if self.batch_size < 1:
            problems.append("the batch size must be at least 1")
        if self.max_length < 8:
            problems.append("the maximum text length must be at least 8 tokens")
        if self.truncation not in STRATEGIES:
            problems.append(f"the way to cut long texts must be one of {', '.join(STRATEGIES)}")
        if not 0 <= self.dropout < 1 or not 0 <= self.warmup_share <= 1 or self.weight_decay < 0:
            problems.append("dropout and warm-up share must lie between 0 and 1, weight decay at or above 0")
        if self.device not in DEVICES:
            problems.append(f"the device must be one of {', '.join(DEVICES)}")
        if problems:
            raise UserError("The fine-tuning settings cannot be used: " + "; ".join(problems) + ".",
                            "Change the settings of the Transformer model.")
