"""Which model a study recommends — chosen on the training texts alone, before the test texts are
looked at, so the recommended model's test score is an honest estimate of how well it will do.

* Among the single models: the best cross-validated macro-F1 (for a Transformer tuned on one
  validation split, its score there).
* A combined model is recommended instead only when cross-validation shows it clearly better than
  the best model it combines: its advantage on the same held-out folds exceeds one standard error
  (the one-standard-error rule, which prefers the simpler model when the difference may be chance),
  it was learnt on enough training texts (at least ``FEW_TEXTS`` and half of them — a Transformer
  tuned on one validation split leaves out-of-fold probabilities for its validation texts only),
  and it is ahead of the best single model too. A combination that scored below every part in
  cross-validation is never recommended and is flagged in words.

The Results step, the Predict and Documents steps, the command line and the methods appendix all
put the recommended model first (``ExperimentResult.ranked``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

ModelResult = Any  # results.ModelResult (which asks this module for its study's recommendation)

FEW_TEXTS = 200  # a combination learnt on fewer out-of-fold texts is not recommended
FEW_SHARE = 0.5  # nor one learnt on less than this share of the training texts
_HONEST = "It was chosen before the test texts were looked at, so its test score is an honest estimate."


@dataclass(frozen=True)
class Recommendation:
    model: ModelResult
    reason: str  # one sentence: why this model
    cautions: list[str] = field(default_factory=list)  # why a combined model was not recommended


def recommend(models: list[ModelResult], n_train: int | None) -> Recommendation | None:
    """The recommended model among the finished ``models`` (see the module docstring)."""
    finished = [model for model in models if model.ok and model.test is not None]
    if not finished:
        return None
    singles = [model for model in finished if model.representation != "combined" and _finite(model.cv_mean)]
    if not singles:
        best = max(finished, key=lambda model: model.test.macro_f1)  # type: ignore[union-attr]
        return Recommendation(best, "No model has cross-validation scores on the training texts, so the best "
                                    "score on the test texts comes first.")
    single = max(singles, key=lambda model: model.cv_mean)  # type: ignore[arg-type,return-value]
    cautions, eligible = [], []
    for combined in (model for model in finished if model.representation == "combined"):
        words = _why_not(combined, single, n_train)
        if words:
            cautions.append(words)
        else:
            eligible.append(combined)
    if eligible:
        chosen = max(eligible, key=lambda model: model.cv_mean or -1.0)
        evidence = chosen.combination.against_parts  # type: ignore[union-attr]
        return Recommendation(chosen, (
            f"In cross-validation on the training texts it beat the best model it combines, "
            f"{evidence.best_part}, by {evidence.advantage:+.3f} macro-F1 (standard error {evidence.advantage_se:.3f} "
            f"over {evidence.folds} folds). {_HONEST}"), cautions)
    return Recommendation(single, (
        f"It has the best cross-validated macro-F1 on the training texts ({single.cv_mean:.3f}). {_HONEST}"), cautions)


def _why_not(combined: ModelResult, single: ModelResult, n_train: int | None) -> str:
    """Why a combined model is not recommended, in words ("" when it may be)."""
    combination = combined.combination
    evidence = combination.against_parts if combination is not None else None
    name = combined.name
    if evidence is None:
        return f"{name} is not recommended: it was not compared with its parts in cross-validation."
    if evidence.below_every_part:
        return (f"{name} scored below every model it combines in cross-validation ({evidence.score:.3f} against "
                f"{evidence.worst_part_score:.3f}–{evidence.best_part_score:.3f}); it is shown for comparison but "
                "never recommended.")
    texts = evidence.learnt_on_texts
    if n_train and texts < FEW_SHARE * n_train:
        return (f"{name} is not recommended: it was learnt on only {texts:,} of {n_train:,} training texts (those "
                "held out from every model it combines), too few to trust how it weighs its parts.")
    if texts < FEW_TEXTS:
        return (f"{name} is not recommended: it was learnt on only {texts:,} training texts, too few to trust how "
                f"it weighs its parts (it takes at least {FEW_TEXTS:,}).")
    if not evidence.clear_advantage:
        return _no_clear_advantage(name, evidence)
    if not (combined.cv_mean or 0.0) > (single.cv_mean or 0.0):
        return (f"{name} is not recommended: its cross-validated macro-F1 ({combined.cv_mean or 0.0:.3f}) is not "
                f"above {single.name}'s ({single.cv_mean or 0.0:.3f}).")
    return ""


def _no_clear_advantage(name: str, evidence: Any) -> str:
    """Why a combination not clearly ahead of its best part is not recommended: within chance when it
    is ahead by at most one standard error; when behind, that it scored below, and whether the gap
    is larger than chance alone would explain (a two-sided t-test at 5 % over the folds)."""
    se = f" ± {evidence.advantage_se:.3f}" if _finite(evidence.advantage_se) else ""
    if evidence.advantage > 0:
        return (f"{name} is not recommended: its advantage over {evidence.best_part} in cross-validation "
                f"({evidence.advantage:+.3f}{se}) is within chance, so the simpler model is preferred.")
    if evidence.advantage == 0:
        return (f"{name} is not recommended: it scored the same as {evidence.best_part} in cross-validation, "
                "so the simpler model is preferred.")
    text = (f"{name} is not recommended: it scored below {evidence.best_part} in cross-validation "
            f"({evidence.advantage:+.3f}{se} macro-F1 over {evidence.folds} folds)")
    if not _finite(evidence.advantage_se) or evidence.folds < 2:
        return text + "."
    if evidence.advantage_se == 0 or -evidence.advantage / evidence.advantage_se > _t_quantile(evidence.folds - 1):
        return text + ", a gap larger than chance alone would explain."
    return text + "; a gap this small could be chance, but the combination is not ahead, so the simpler model is preferred."


def _t_quantile(df: int) -> float:
    """The two-sided 5 % critical value of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.975, df))


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
