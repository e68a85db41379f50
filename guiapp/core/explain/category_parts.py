"""Which classifier scores a category, for the exact explanations.

A single-label model has one classifier with a score per category (or one score for two
categories). Where a text can have several categories, a conventional model is one yes/no
classifier per category (:class:`~guiapp.core.experiment.protocol.per_category.PerCategoryClassifier`):
category ``k``'s chance is its own classifier's probability of "yes", so an explanation of
category ``k`` is an explanation of that classifier's score toward "yes" — never a softmax over
the categories. A category that every training text had, or none did, was learnt as a constant
(:class:`~guiapp.core.experiment.protocol.per_category.ConstantAnswer`): no word moves its chance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.experiment.protocol.per_category import ConstantAnswer, PerCategoryClassifier

NOT_LEARNT = ("The model learnt no words for this category: every training text had it, or none did, so its "
              "chance is the same for every text.")


def is_one_per_category(classifier: Any) -> bool:
    """Whether ``classifier`` is one yes/no classifier per category (a text can have several)."""
    return isinstance(classifier, PerCategoryClassifier)


def representative(classifier: Any) -> Any:
    """The classifier that tells which explanation applies: the classifier itself, or for one
    classifier per category the first that learnt something (None when none did)."""
    if isinstance(classifier, PerCategoryClassifier):
        return next((part for part in classifier.parts if not isinstance(part, ConstantAnswer)), None)
    return classifier


def learnt(classifier: Any, target: int) -> bool:
    """Whether the classifier has its own weights for category ``target`` (it saw coded texts of it
    and, for one classifier per category, texts without it too)."""
    if isinstance(classifier, PerCategoryClassifier):
        return 0 <= target < classifier.n_categories and not isinstance(classifier.parts[target], ConstantAnswer)
    classes = getattr(classifier, "textlab_classes_", None)
    return classes is None or target in np.asarray(classes).tolist()


def class_position(classifier: Any, target: int) -> int:
    """Where category ``target`` stands among the classifier's classes (it may have seen fewer)."""
    classes = np.asarray(classifier.textlab_classes_).tolist()
    if target not in classes:
        raise UserError("The model never saw a coded text of this category, so it cannot explain it.",
                        "Choose another category.")
    return classes.index(target)


def category_classifier(classifier: Any, target: int) -> tuple[Any, int]:
    """(the classifier whose score decides category ``target``, the class of that score): the
    classifier and the category's own class, or for one classifier per category that category's
    classifier and its "yes" class."""
    if isinstance(classifier, PerCategoryClassifier):
        if not 0 <= target < classifier.n_categories:
            raise ValueError(f"category index {target} outside 0 … {classifier.n_categories - 1}")
        part = classifier.parts[target]
        if isinstance(part, ConstantAnswer):
            raise UserError(NOT_LEARNT, "Choose another category.")
        return part, class_position(part, 1)
    return classifier, class_position(classifier, target)


def yes_no_parts(classifier: PerCategoryClassifier) -> list[tuple[int, Any, int]]:
    """(category, its classifier, the position of "yes") for every category that learnt something."""
    return [(k, part, class_position(part, 1)) for k, part in enumerate(classifier.parts)
            if not isinstance(part, ConstantAnswer)]
