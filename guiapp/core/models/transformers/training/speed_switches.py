"""The fine-tuning loop's speed-ups, each of which can be switched off to measure or check it.

All are on by default; ``TEXTLAB_FINE_TUNING_OFF`` names those to switch off, separated by commas
(the speed benchmark runs each variant this way, and a user who suspects one can rule it out):

- ``first_token``: the last layer computes only the token the classifier reads (``first_token.py``);
- ``vocabulary``: only the word embeddings of words in the texts are trained (``used_vocabulary.py``);
- ``threads``: on the CPU, one thread per free core, looked at again while training (``cpu_threads.py``);
- ``lag``: on a GPU, each step's loss is read after the next step has been queued, so the GPU never
  waits for Python between steps (on the CPU there is nothing to overlap);
- ``pad8``: on a GPU, batches are padded to a multiple of 8 tokens, the shapes its matrix units like.

None of them changes what is learned beyond floating-point rounding and the random draws of dropout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

VARIABLE = "TEXTLAB_FINE_TUNING_OFF"
NAMES = ("first_token", "vocabulary", "threads", "lag", "pad8")


@dataclass(frozen=True)
class SpeedSwitches:
    first_token: bool = True
    vocabulary: bool = True
    threads: bool = True
    lag: bool = True
    pad8: bool = True

    @classmethod
    def from_environment(cls) -> SpeedSwitches:
        """The switches as ``TEXTLAB_FINE_TUNING_OFF`` leaves them ("all" switches every one off);
        unknown names are ignored."""
        off = {name.strip().lower() for name in os.environ.get(VARIABLE, "").split(",") if name.strip()}
        if "all" in off:
            off = set(NAMES)
        return cls(**{name: name not in off for name in NAMES})

    def pad_multiple(self, device_type: str) -> int:
        """Pad each batch to a multiple of this many tokens (1: to its longest text exactly)."""
        return 8 if self.pad8 and device_type == "cuda" else 1


__all__ = ["NAMES", "VARIABLE", "SpeedSwitches"]
