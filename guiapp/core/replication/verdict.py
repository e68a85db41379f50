"""The verdict of a replication in plain sentences: per model, whether the rerun gave the same
numbers ("identical"), numbers that moved no more than rerunning with other seeds moves them
("within the run-to-run spread"), or other numbers ("different") — and then the likely reason: other
library versions (named, with both versions), another device (CPU or GPU), or data that are not the
same by hash. Pure functions on numbers and version lists, so the words are tested without a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

IDENTICAL = "identical"
WITHIN_SPREAD = "within spread"
DIFFERENT = "different"
NOT_COMPARED = "not compared"

TOLERANCE = 1e-9  # macro-F1 differences below this are the rounding of a JSON file, not a change
# the libraries whose versions change a model's numbers, named first when versions differ
KEY_LIBRARIES = ("scikit-learn", "numpy", "scipy", "torch", "transformers", "tokenizers", "safetensors",
                 "sentence-transformers", "setfit", "xgboost", "imbalanced-learn", "pandas", "pystemmer",
                 "nltk", "spacy", "gensim", "textlab")
MAX_NAMED = 6  # libraries named one by one; the rest are counted


@dataclass(frozen=True)
class Spread:
    """How far a model's macro-F1 moved when only the seed changed: the largest distance between the
    rerun with the package's seed and a rerun with one of ``seeds`` other seeds."""

    seeds: int
    largest: float

    def words(self) -> str:
        return f"±{self.largest:.3f} measured with {self.seeds} other seed{'s' if self.seeds != 1 else ''}"


@dataclass(frozen=True)
class Verdict:
    """``kind`` (one of the constants above) and the sentence a researcher reads."""

    kind: str
    sentence: str

    @property
    def agrees(self) -> bool:
        """The rerun confirms the original (identical, or within the run-to-run spread)."""
        return self.kind in (IDENTICAL, WITHIN_SPREAD)


def is_identical(original: float, rerun: float, answers_changed: int | None) -> bool:
    """The same macro-F1 (to the rounding of a JSON file) and, where known, not one answer changed."""
    return abs(rerun - original) <= TOLERANCE and not answers_changed


def model_verdict(original: float | None, rerun: float | None, answers_changed: int | None = None,
                  spread: Spread | None = None, reasons: list[str] | None = None, *, missing: str = "") -> Verdict:
    """The verdict for one model. ``answers_changed``: test texts whose answer changed (None when the
    answers could not be compared); ``spread``: the run-to-run spread, when measured; ``reasons``: the
    likely reasons for a difference (:func:`likely_reasons`); ``missing``: why there is no rerun score."""
    if original is None or rerun is None:
        return Verdict(DIFFERENT, f"different: {missing or 'the rerun has no score for this model'}.")
    difference = rerun - original
    if is_identical(original, rerun, answers_changed):
        return Verdict(IDENTICAL, "identical: the same macro-F1"
                       + (" and the same answer for every test text." if answers_changed == 0 else "."))
    moved = _moved(difference, answers_changed)
    # other seeds that did not move the numbers at all leave no room for a rerun that moved them
    if (spread is not None and spread.seeds > 0 and spread.largest > TOLERANCE
            and abs(difference) <= spread.largest + TOLERANCE):
        return Verdict(WITHIN_SPREAD, f"within the run-to-run spread ({spread.words()}): {moved}, no more than "
                       "rerunning with another seed moves it.")
    if spread is None or spread.seeds == 0:
        measured = "the run-to-run spread was not measured"
    else:
        measured = f"more than the run-to-run spread ({spread.words()})"
    why = ("likely reason: " + "; ".join(reasons) if reasons else
           "no likely reason was found: the same library versions, device and data — the study itself may "
           "not be repeatable (e.g. a model whose training is not seeded)")
    return Verdict(DIFFERENT, f"different: {moved}, {measured}; {why}.")


def _moved(difference: float, answers_changed: int | None) -> str:
    said = f"the macro-F1 moved by {difference:+.3f}" if abs(difference) > TOLERANCE else "the same macro-F1"
    if answers_changed:
        said += f" and {answers_changed:,} test text{'s' if answers_changed != 1 else ''} got another answer"
    return said


def overall_verdict(verdicts: list[Verdict]) -> Verdict:
    """One verdict for the whole study: different when any model differs, else within the spread when
    any model is only within it, else identical."""
    if not verdicts:
        return Verdict(NOT_COMPARED, "Nothing could be compared: the package records no model with a score.")
    different = sum(1 for verdict in verdicts if verdict.kind == DIFFERENT)
    if different:
        return Verdict(DIFFERENT, f"Different: {different} of {len(verdicts)} model{'s' if len(verdicts) != 1 else ''} "
                       "did not give the package's numbers again (see the reasons above).")
    if any(verdict.kind == WITHIN_SPREAD for verdict in verdicts):
        return Verdict(WITHIN_SPREAD, "Replicated within the run-to-run spread: every model's numbers moved no "
                       "more than rerunning it with other seeds moves them.")
    return Verdict(IDENTICAL, "Identical: every model gave the package's numbers again.")


def likely_reasons(original_versions: dict[str, str], these_versions: dict[str, str], *,
                   original_device: str = "", this_device: str = "", data_same: bool = True) -> list[str]:
    """The likely reasons why a rerun differs, in words: the data not the same by hash, another
    device (``original_device``/``this_device``: "cpu", "cuda", "mps" or "" when not recorded), and
    the libraries whose versions differ (:func:`library_differences`)."""
    reasons = []
    if not data_same:
        reasons.append("the data are not the same by hash")
    device = device_difference(original_device, this_device)
    if device:
        reasons.append(device)
    libraries = library_differences(original_versions, these_versions)
    if libraries:
        reasons.append("other library versions (" + libraries + ")")
    return reasons


def device_difference(original: str, here: str) -> str:
    """"another device: the original trained on a GPU, this rerun on the CPU" — or "" when the same
    or not recorded."""
    if not original or not here or _device_kind(original) == _device_kind(here):
        return ""
    return f"another device: the original trained on {_device_words(original)}, this rerun on {_device_words(here)}"


def thread_difference(original: int | None, here: int | None) -> str:
    """"another number of CPU threads: …" when a model trained on the CPU with other thread counts
    (its sums over many numbers then come out differently in their last digits); "" when the same
    or not known."""
    if not original or not here or original == here:
        return ""
    return (f"another number of CPU threads: the original trained with {original}, this rerun with {here} "
            "(sums over many numbers then differ in their last digits)")


def _device_kind(device: str) -> str:
    device = device.lower()
    return "gpu" if device.startswith(("cuda", "gpu")) else device


def _device_words(device: str) -> str:
    return {"cpu": "the CPU", "gpu": "a GPU", "mps": "an Apple GPU (MPS)"}.get(
        _device_kind(device), device)


def canonical_name(name: str) -> str:
    """A distribution's name as pip compares them ("Scikit_Learn" and "scikit-learn" are one)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def library_differences(original: dict[str, str], here: dict[str, str]) -> str:
    """The libraries the package records whose version differs here (or that are missing here), in
    words: the libraries that change a model's numbers first, then others, at most ``MAX_NAMED`` named
    and the rest counted; "" when every recorded version is the same here."""
    these = {canonical_name(name): str(version) for name, version in here.items()}
    differing: list[tuple[int, str]] = []
    for name, version in original.items():
        key = canonical_name(name)
        if not version or key == "cuda":
            continue
        now = these.get(key)
        if now == str(version):
            continue
        said = f"{name} {version} in the package, " + (f"{now} here" if now else "not installed here")
        order = KEY_LIBRARIES.index(key) if key in KEY_LIBRARIES else len(KEY_LIBRARIES)
        differing.append((order, said))
    differing.sort(key=lambda item: item[0])
    named = [said for _, said in differing[:MAX_NAMED]]
    rest = len(differing) - len(named)
    if rest:
        named.append(f"and {rest} other librar{'ies' if rest != 1 else 'y'}")
    return "; ".join(named)
