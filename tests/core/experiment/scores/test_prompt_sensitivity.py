"""The prompt-sensitivity report: Krippendorff's α between the wordings' answers, the share of texts
they agree on, the spread of macro-F1 and one sentence on what it means."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.experiment.scores.prompt_sensitivity import (
    agreement_alpha,
    prompt_sensitivity,
    same_answer_share,
)
from guiapp.core.stats.agreement import krippendorff_alpha

PROMPTS = [{"instruction_variant": v, "instruction": f"Wording {v}", "prompt_sha256": f"{v}" * 64} for v in (0, 1, 2)]
TRUTH = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])


def test_wordings_that_agree_are_said_to_hardly_matter():
    answers = [TRUTH.copy(), TRUTH.copy(), TRUTH.copy()]
    answers[2][0] = 1  # one text answered otherwise by the third wording
    report = prompt_sensitivity(PROMPTS, answers, TRUTH)
    assert [row["instruction_variant"] for row in report["prompts"]] == [0, 1, 2]
    assert report["prompts"][0]["macro_f1"] == 1.0 and report["macro_f1_max"] == 1.0
    assert report["macro_f1_min"] == pytest.approx(report["prompts"][2]["macro_f1"]) and report["macro_f1_min"] < 1.0
    assert report["alpha"] == pytest.approx(krippendorff_alpha(np.asarray(answers, dtype=float)), abs=1e-6)
    assert report["alpha"] > 0.8 and report["agreed_share"] == pytest.approx(0.9)
    assert report["sentence"].startswith("The three wordings of the instruction gave the same answer to 90 % of the "
                                         "test texts (Krippendorff's α = 0.")
    assert "hardly depend on how the instruction is worded" in report["sentence"]


def test_wordings_that_disagree_call_for_caution():
    rng = np.random.default_rng(0)
    answers = [TRUTH, rng.integers(0, 3, size=10), rng.integers(0, 3, size=10)]
    report = prompt_sensitivity(PROMPTS, answers, TRUTH)
    assert report["alpha"] < 0.667
    assert "depend strongly on how the instruction is worded" in report["sentence"]
    assert f"macro-F1 ranged from {report['macro_f1_min']:.2f} to {report['macro_f1_max']:.2f}" in report["sentence"]


def test_no_variation_gives_no_alpha_and_says_why():
    same = np.zeros(10, dtype=int)
    report = prompt_sensitivity(PROMPTS[:2], [same, same], TRUTH)
    assert report["alpha"] is None and report["agreed_share"] == 1.0
    assert report["sentence"].startswith("The two wordings") and "cannot be computed" in report["sentence"]


def test_several_categories_per_text_average_each_categorys_alpha():
    first = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]])
    second = first.copy()
    second[0, 1] = 1  # the second category differs in one text
    alpha = agreement_alpha([first, second])
    per_category = [krippendorff_alpha(np.asarray([first[:, c], second[:, c]], dtype=float)) for c in range(2)]
    assert alpha == pytest.approx(np.mean(per_category)) and per_category[0] == 1.0 and per_category[1] < 1.0
    assert same_answer_share([first, second]) == pytest.approx(5 / 6)
    report = prompt_sensitivity(PROMPTS[:2], [first, second], first)
    assert report["prompts"][0]["macro_f1"] == 1.0 and report["macro_f1_min"] < 1.0


def test_one_prompt_is_no_report():
    with pytest.raises(ValueError):
        prompt_sensitivity(PROMPTS[:1], [TRUTH], TRUTH)
