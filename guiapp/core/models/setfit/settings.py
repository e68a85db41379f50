"""The settings of one SetFit training run, checked before it starts (and when read back from a file).

Besides these, SetFit's own defaults are kept as fixed constants: AdamW with weight decay 0.01
(not on biases and LayerNorm weights), the learning rate rising over the first 10 % of the steps
and then falling linearly to 0, gradients clipped at norm 1, the sentence model's own dropout.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from guiapp.core.errors import UserError

DEVICES = ("auto", "cpu", "cuda", "mps")
WEIGHT_DECAY = 0.01  # SetFit's l2_weight
WARMUP_SHARE = 0.1  # SetFit's warmup_proportion
MAX_GRAD_NORM = 1.0  # Hugging Face's Trainer, which SetFit trains with
# SetFit is made for a few coded texts per category; with thousands, pairs_per_text × n pairs would
# take hours on a CPU while the head still learns from every text. 5,000 pairs leave the published
# method untouched up to 125 coded texts (e.g. 64 per category of two), and train in minutes on a CPU.
DEFAULT_MAX_PAIRS = 5_000

_LIMITS = {  # setting: (lowest, highest, the words for it)
    "epochs": (1, 1_000, "the number of epochs (passes over the pairs of texts)"),
    "pairs_per_text": (1, 10_000, "the pairs per text"),
    "max_pairs": (2, 10_000_000, "the most pairs per epoch"),
    "max_length": (8, 8_192, "the maximum text length in tokens"),
    "batch_size": (1, 4_096, "the batch size (pairs per step)"),
    "seed": (0, 2**63 - 1, "the seed"),
}


@dataclass(frozen=True)
class SetFitSettings:
    """``pairs_per_text`` is SetFit's ``num_iterations``: each coded text takes part in that many
    pairs of similar texts and as many of dissimilar texts, per epoch — but an epoch has at most
    ``max_pairs`` pairs (half of each kind), drawn at random among them."""

    epochs: int = 1
    pairs_per_text: int = 20
    max_pairs: int = DEFAULT_MAX_PAIRS
    learning_rate: float = 2e-5
    max_length: int = 128
    batch_size: int = 16
    seed: int = 42
    device: str = "auto"  # "auto" (a GPU when there is one) | "cpu" | "cuda" | "mps"

    def check(self) -> None:
        """A :class:`UserError` naming every setting that cannot be used, in plain words."""
        problems = []
        for name, (low, high, words) in _LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(f"{words} must be a whole number, not {value!r}")
            elif not low <= value <= high:
                problems.append(f"{words} must be from {low:,} to {high:,}, not {value:,}")
        rate = self.learning_rate
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not math.isfinite(rate) \
                or not 0 < rate < 1:
            problems.append(f"the learning rate must be a number above 0 and below 1 (e.g. 2e-5), not {rate!r}")
        if self.device not in DEVICES:
            problems.append(f"the device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if problems:
            raise UserError("The SetFit settings cannot be used: " + "; ".join(problems) + ".",
                            "Change the settings of the SetFit model.")

    @classmethod
    def from_saved(cls, saved: Mapping[str, Any]) -> SetFitSettings:
        """The settings a saved model records; missing ones take their default, unknown ones (another
        TextLab version) are left out. A :class:`UserError` when one is of the wrong kind or range."""
        if not isinstance(saved, Mapping):
            raise UserError("The SetFit settings cannot be used: they are not a list of named settings.")
        known = {setting.name for setting in fields(cls)}
        values = {name: value for name, value in saved.items() if name in known}
        if isinstance(values.get("learning_rate"), int) and not isinstance(values["learning_rate"], bool):
            values["learning_rate"] = float(values["learning_rate"])
        settings = cls(**values)
        settings.check()
        return settings


__all__ = ["DEFAULT_MAX_PAIRS", "DEVICES", "MAX_GRAD_NORM", "WARMUP_SHARE", "WEIGHT_DECAY", "SetFitSettings"]
