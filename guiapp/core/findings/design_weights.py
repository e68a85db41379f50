"""The weighting (weights of the coded texts and the design's variance) of each design whose coded
texts are texts of the corpus."""

from __future__ import annotations

from guiapp.core.findings.designs import (
    CodingStepDraws,
    KnownProbabilities,
    RandomSample,
    Stratified,
)
from guiapp.core.findings.inputs import Checked
from guiapp.core.findings.sequential import sequential
from guiapp.core.findings.weighting import (
    Weighting,
    independent,
    random_sample,
    stratified,
)


def weighting_for(design: object, checked: Checked) -> Weighting:
    if isinstance(design, RandomSample):
        return random_sample(checked)
    if isinstance(design, Stratified):
        return stratified(design, checked)
    if isinstance(design, KnownProbabilities):
        return independent(design, checked)
    if isinstance(design, CodingStepDraws):
        return sequential(design, checked)
    raise TypeError(f"no weighting for {design!r}")
