"""Findings: the share of each category in the corpus and per group, with intervals that carry the
model's mistakes; differences between groups; a regression of a category on metadata columns; and
shares adjusted for prior shift when no coded text comes from the corpus. Plain Python, no Qt."""

from guiapp.core.findings.coding_design import LoggedCodings, design_from_log
from guiapp.core.findings.cross_fitting import CrossFitted, cross_fitted_probabilities
from guiapp.core.findings.designs import (
    CodingStepDraws,
    Design,
    KnownProbabilities,
    OtherCorpus,
    RandomSample,
    SeparateSample,
    Step,
    Stratified,
)
from guiapp.core.findings.findings import estimate_findings
from guiapp.core.findings.inputs import CodedSample
from guiapp.core.findings.quantification import Quantification, quantify
from guiapp.core.findings.records import Difference, Findings, Share
from guiapp.core.findings.regression import (
    Coefficient,
    Regression,
    formula_for,
    regress,
)

__all__ = [
    "CodedSample", "CodingStepDraws", "Coefficient", "CrossFitted", "Design", "Difference", "Findings",
    "KnownProbabilities", "LoggedCodings", "OtherCorpus", "Quantification", "RandomSample", "Regression",
    "SeparateSample", "Share", "Step", "Stratified", "cross_fitted_probabilities", "design_from_log",
    "estimate_findings", "formula_for", "quantify", "regress",
]
