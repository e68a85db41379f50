"""How the coded texts were chosen — the design — as plain data. The design decides the estimator
(``findings.estimate_findings``) and the sentence that says what was assumed.

- :class:`RandomSample`: the coded texts are a simple random sample of the corpus (π = n/N).
- :class:`Stratified`: they were drawn at random within each group of a column (π = n_h/N_h).
- :class:`KnownProbabilities`: each coded text was chosen independently with a known probability π.
- :class:`CodingStepDraws`: TextLab's Coding step chose them one at a time from the texts still
  open, each with a recorded probability, after the file's own codings (taken as a random sample).
- :class:`SeparateSample`: the coded texts are not texts of the corpus but a random sample of the
  same kind of texts (the study's coded texts, the corpus a new file).
- :class:`OtherCorpus`: no coded text comes from the corpus measured and the categories may be
  more or less common there (coded 2016, measuring 2020): prior-shift quantification.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from guiapp.core.errors import DataError

QUANTIFIERS = ("pacc", "acc", "sld", "pcc", "cc")


@dataclass(frozen=True)
class RandomSample:
    """The coded texts are a simple random sample of the corpus."""

    assumption = "The coded texts are a random sample of the corpus."


@dataclass(frozen=True)
class Stratified:
    """The coded texts were drawn at random within each stratum; ``strata``: one value per
    corpus text (e.g. the column ``party``), in corpus order."""

    strata: Sequence
    assumption = ("The coded texts are a random sample of each group they were drawn from, "
                  "weighted by the share of the corpus that group holds.")


@dataclass(frozen=True)
class KnownProbabilities:
    """Each coded text was chosen independently of the others with a known probability;
    ``probabilities``: one per coded text, in the order of the coded sample (0 < π ≤ 1)."""

    probabilities: Sequence[float]
    assumption = "The coded texts are weighted by the known chance with which each was chosen for coding."


@dataclass(frozen=True)
class Step:
    """A text TextLab showed for coding: its position in the corpus and the probability with which
    it was drawn from the texts still open (None: chosen by hand, not drawn)."""

    position: int
    probability: float | None


@dataclass(frozen=True)
class CodingStepDraws:
    """The Coding step's record: ``initial`` the corpus positions of the file's own codings (a
    simple random sample of the corpus is assumed for them); ``steps`` every text TextLab showed,
    in the order shown (a text shown and skipped counts with the model's answer); ``left_out``
    the positions of drawn texts a coding team left uncoded because its coders disagreed and no
    one adjudicated (they count like skipped texts; the Findings say why)."""

    initial: Sequence[int]
    steps: Sequence[Step]
    left_out: Sequence[int] = ()
    assumption = "The texts TextLab chose for coding are weighted by the chance with which they were chosen."


@dataclass(frozen=True)
class SeparateSample:
    """The coded texts are not in the corpus; they and the corpus are random samples of the same
    kind of texts."""

    assumption = ("The coded texts and the corpus are random samples of the same kind of texts "
                  "(the coded texts are not part of the corpus).")


@dataclass(frozen=True)
class OtherCorpus:
    """No coded text comes from the corpus measured; the categories may be more or less common
    there, but each category's texts read as they did. ``method``: one of ``QUANTIFIERS``."""

    method: str = "pacc"
    assumption = ("No coded text comes from the corpus measured here. The shares are adjusted for "
                  "categories becoming more or less common, and their intervals rest on the assumption "
                  "that the categories' wording did not change: a text of each category reads as it "
                  "did in the coded texts.")

    def __post_init__(self) -> None:
        if self.method not in QUANTIFIERS:
            raise DataError(f"There is no way to adjust shares called “{self.method}”.",
                            "Choose one of: " + ", ".join(QUANTIFIERS) + ".")


Design = RandomSample | Stratified | KnownProbabilities | CodingStepDraws | SeparateSample | OtherCorpus
IN_CORPUS = (RandomSample, Stratified, KnownProbabilities, CodingStepDraws)


def check_design(design: object, in_corpus: bool) -> None:
    """The design fits where the coded texts are (in the corpus or not)."""
    if not isinstance(design, RandomSample | Stratified | KnownProbabilities | CodingStepDraws | SeparateSample
                      | OtherCorpus):
        raise DataError(f"“{design!r}” does not say how the coded texts were chosen.",
                        "Say whether they are a random sample of the corpus, drawn per group, chosen by "
                        "TextLab's Coding step, or coded in another collection of texts.")
    if isinstance(design, IN_CORPUS) and not in_corpus:
        raise DataError("The coded texts' places in the corpus are not given, but this way of choosing "
                        "them needs them.",
                        "Give each coded text's position in the corpus, or say that the coded texts are "
                        "not part of the corpus.")
    if not isinstance(design, IN_CORPUS) and in_corpus:
        raise DataError("The coded texts are given as texts of the corpus, but the chosen design says they "
                        "are not.",
                        "Say that they are a random sample of the corpus (or chosen by the Coding step), "
                        "or give them without positions in the corpus.")
