"""The recommended model is chosen on the training texts alone: a combined model only when it is
clearly better than its best part in cross-validation and was learnt on enough texts."""

from __future__ import annotations

from guiapp.core.experiment.combined.combined_evidence import AgainstParts, against_parts
from guiapp.core.experiment.results.recommendation import recommend
from guiapp.core.experiment.results.experiment_result import ModelResult
from guiapp.core.experiment.results.experiment_result import TestResult as HeldOutScores


def _model(name: str, test: float, cv: list[float], representation: str = "bow", evidence=None) -> ModelResult:
    spec = {"parts": ["SVM", "LR"], "learnt_on_texts": evidence.learnt_on_texts} if evidence else {}
    if evidence is not None:
        spec["against_parts"] = evidence.to_dict()
    model = ModelResult(name=name, representation=representation, classifier="svm", spec=spec, cv_scores=cv)
    model.test = HeldOutScores(test, None, 0.95, test, [], [])
    return model


def _evidence(advantage: float, se: float, texts: int = 600, score: float = 0.75, worst: float = 0.6):
    return AgainstParts("LR", score - advantage, worst, score, advantage, se, 5, texts)


def _study(combined_evidence, combined_test=0.80):
    return [_model("SVM", 0.70, [0.68] * 5), _model("LR", 0.74, [0.72] * 5),
            _model("Combined: stacking", combined_test, [0.75] * 5, "combined", combined_evidence)]


def test_the_single_model_with_the_best_cross_validation_is_recommended_whatever_the_test_says():
    models = [_model("SVM", 0.80, [0.70] * 5), _model("LR", 0.74, [0.72] * 5)]
    chosen = recommend(models, 700)
    assert chosen.model.name == "LR"
    assert "best cross-validated macro-F1 on the training texts (0.720)" in chosen.reason
    assert chosen.reason.endswith("so its test score is an honest estimate.")


def test_a_combination_clearly_ahead_of_its_best_part_is_recommended():
    chosen = recommend(_study(_evidence(0.03, 0.01)), 700)
    assert chosen.model.name == "Combined: stacking" and chosen.cautions == []
    assert "beat the best model it combines, LR, by +0.030" in chosen.reason


def test_a_combination_within_chance_of_its_best_part_is_not_recommended():
    chosen = recommend(_study(_evidence(0.004, 0.006)), 700)
    assert chosen.model.name == "LR"
    assert chosen.cautions == ["Combined: stacking is not recommended: its advantage over LR in cross-validation "
                               "(+0.004 ± 0.006) is within chance, so the simpler model is preferred."]


def test_a_combination_learnt_on_a_validation_split_only_is_not_recommended():
    chosen = recommend(_study(_evidence(0.05, 0.01, texts=131)), 653)
    assert chosen.model.name == "LR"
    assert "learnt on only 131 of 653 training texts" in chosen.cautions[0]
    assert recommend(_study(_evidence(0.05, 0.01, texts=300)), 653).model.name == "LR"  # under half of them
    few = recommend(_study(_evidence(0.05, 0.01, texts=126)), 126)
    assert few.model.name == "LR" and "learnt on only 126 training texts" in few.cautions[0]


def test_a_combination_below_every_part_is_flagged_and_never_recommended():
    evidence = AgainstParts("LR", 0.156, 0.10, 0.083, -0.073, 0.01, 2, 400)
    chosen = recommend(_study(evidence, combined_test=0.90), 450)
    assert chosen.model.name == "LR"
    assert chosen.cautions[0].startswith("Combined: stacking scored below every model it combines in "
                                         "cross-validation (0.083 against 0.100–0.156)")


def test_without_cross_validation_the_best_test_score_comes_first():
    models = [_model("SVM", 0.80, []), _model("LR", 0.74, [])]
    assert recommend(models, 100).model.name == "SVM"


def test_the_evidence_pairs_the_folds_and_round_trips():
    evidence = against_parts([0.80, 0.82, 0.78], {"A": [0.70, 0.75, 0.72], "B": [0.79, 0.80, 0.74]}, 300)
    assert evidence.best_part == "B" and evidence.folds == 3
    assert abs(evidence.advantage - (0.01 + 0.02 + 0.04) / 3) < 1e-12
    assert evidence.clear_advantage and not evidence.below_every_part
    assert AgainstParts.from_dict(evidence.to_dict()) == evidence
    assert AgainstParts.from_dict({"best_part": "B"}) is None


def test_a_combination_clearly_below_its_best_part_is_said_to_score_below_not_within_chance():
    chosen = recommend(_study(_evidence(-0.014, 0.004)), 700)
    assert chosen.model.name == "LR"
    caution = chosen.cautions[0]
    assert "within chance" not in caution and "advantage" not in caution
    assert ("Combined: stacking is not recommended: it scored below LR in cross-validation (-0.014 ± 0.004 macro-F1 "
            "over 5 folds), a gap larger than chance alone would explain.") == caution


def test_a_combination_slightly_below_its_best_part_may_be_behind_by_chance():
    caution = recommend(_study(_evidence(-0.004, 0.006)), 700).cautions[0]
    assert "it scored below LR in cross-validation (-0.004 ± 0.006 macro-F1 over 5 folds)" in caution
    assert "could be chance" in caution and "within chance" not in caution
