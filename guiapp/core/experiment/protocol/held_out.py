"""The one evaluation on the held-out test texts, the same for every model family.

In a study where a text can have several categories, ``y_test`` and ``predicted`` are indicator
matrices (test texts × categories, after each category's threshold) and the evaluation is
:func:`guiapp.core.experiment.scores.multilabel_metrics.multilabel_test_result`.
"""

from __future__ import annotations

import numpy as np

from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.scores.multilabel_metrics import multilabel_test_result
from guiapp.core.experiment.results.experiment_result import TestResult
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData

CI_LEVEL = 0.95


def evaluate_on_test(y_test: np.ndarray, predicted: np.ndarray, data: StudyData, spec: ExperimentSpec, level: float) -> TestResult:
    """The one evaluation on the test texts, the same for every model family."""
    if np.ndim(y_test) == 2:
        return multilabel_test_result(y_test, predicted, data.categories, spec.evaluation.bootstrap_samples,
                                      spec.seed, level)
    return TestResult(
        macro_f1=metrics.macro_f1(y_test, predicted),
        macro_f1_ci=metrics.bootstrap_macro_f1(
            y_test, predicted, len(data.categories), spec.evaluation.bootstrap_samples, spec.seed, level
        ),
        ci_level=level,
        accuracy=metrics.accuracy(y_test, predicted),
        per_category=metrics.category_scores(y_test, predicted, data.categories),
        confusion=metrics.confusion(y_test, predicted, len(data.categories)),
    )
