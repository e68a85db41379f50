"""The report card of a study's recommended model: every number is the results' own, the confusions
and the most confident mistakes are listed with their texts, the coders' agreement is shown beside
the model's when a team coded, and the page is self-contained."""

from __future__ import annotations

import json

import numpy as np
import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codebook_versions import CodebookHistory
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.team import Team
from guiapp.core.errors import UserError
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.experiment.scores.comparisons import agreement_with_coding
from guiapp.core.project.format import Project, model_folders_of
from guiapp.core.replication.report_card import render_report_card, write_report_card
from guiapp.core.replication.report_card_facts import category_f1_intervals, report_card_facts
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts

CODERS = ["Ann", "Ben"]


def small_study(folder) -> Project:
    """A real two-model study of 160 synthetic texts with a group column, its models saved in ``folder``."""
    table = coded_texts(160, seed=2)
    table["party"] = np.where(np.arange(len(table)) % 2 == 0, "Left", "Right")
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label",
                                            metadata_columns=["party"])),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=200),
        models=[ModelSpec("bow", "naive_bayes"), ModelSpec("bow", "logistic_regression", grid={"C": [1.0]})],
        seed=7, name="Bills by topic",
    )
    result = run_experiment(spec, table=table, n_jobs=1, artefacts_dir=folder / "models")
    # the card reads the results as results.json holds them
    result = ExperimentResult.from_json(result.to_json(include_texts=True))
    return Project(spec=spec, table=table, result=result, model_folders=model_folders_of(result))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return small_study(tmp_path_factory.mktemp("card"))


def team_log(labels: list[str]) -> CodingLog:
    codebook = Codebook([CodebookCategory(name, f"About {name}.") for name in sorted(set(labels))])
    log = CodingLog(team=Team(list(CODERS)), history=CodebookHistory(codebook, "First version", date="2026-03-01"))
    for row, label in enumerate(labels[:30]):
        for coder in CODERS:
            other = next(name for name in sorted(set(labels)) if name != label)
            log.record(row, other if (coder == "Ben" and row % 7 == 0) else label, coder=coder, chosen_by="assigned")
    return log


def test_every_number_is_the_results_own(study) -> None:
    facts = report_card_facts(study)
    result = study.result
    best = result.best()
    assert facts["model"]["name"] == best.name
    assert facts["overall"]["macro_f1"] == best.test.macro_f1
    assert facts["overall"]["macro_f1_ci"] == list(best.test.macro_f1_ci)
    assert facts["overall"]["accuracy"] == best.test.accuracy
    assert facts["overall"]["test_texts"] == len(result.test_true)
    for row, scores in zip(facts["per_category"], best.test.per_category, strict=True):
        assert (row["category"], row["f1"], row["support"]) == (scores.category, scores.f1, scores.support)
        low, high = row["f1_ci"]
        assert low <= scores.f1 + 1e-9 and scores.f1 - 1e-9 <= high
    agreement = next(a for a in agreement_with_coding(result) if a.model == best.name)
    assert facts["agreement"]["model"]["kappa"] == agreement.kappa
    assert facts["agreement"]["model"]["alpha_ci"] == list(agreement.alpha_interval)
    assert facts["settings"]["seed"] == 7 and facts["settings"]["folds"] == 3
    assert facts["training"]["n_test"] == result.test_split.n_test
    json.dumps(facts, allow_nan=False)


def test_the_page_shows_the_numbers_as_results_json_holds_them(study, tmp_path) -> None:
    written = write_report_card(study, tmp_path)
    assert [path.name for path in written] == ["report-card.html", "report-card.json"]
    page = written[0].read_text(encoding="utf-8")
    best = study.result.best()
    saved = json.loads(written[1].read_text(encoding="utf-8"))
    assert saved["overall"]["macro_f1"] == best.test.macro_f1
    assert f"<b>{best.test.macro_f1:.2f}</b>" in page
    low, high = best.test.macro_f1_ci
    assert f"{low:.2f} to {high:.2f}" in page
    for scores in best.test.per_category:
        assert f"<td>{scores.category}</td><td class=\"n\">{scores.f1:.2f}</td>" in page
    assert "Mitchell" in page and "<script" not in page and "src=" not in page
    assert "not for decisions" in page.lower() or "decisions about individual people" in page
    assert "By “party”" in page  # the study's group column


def test_mistakes_and_confusions_are_the_test_texts_own(study) -> None:
    facts = report_card_facts(study)
    result, best = study.result, study.result.best()
    matrix = np.asarray(best.test.confusion)
    off = matrix - np.diag(np.diag(matrix))
    if off.sum():
        top = facts["confusions"][0]
        i, j = result.categories.index(top["coded"]), result.categories.index(top["predicted"])
        assert top["count"] == off.max() == matrix[i, j]
    wrong = sum(int(t != p) for t, p in zip(result.test_true, best.predictions, strict=True))
    assert len(facts["mistakes"]) == min(5, wrong)
    for mistake in facts["mistakes"]:
        at = result.test_rows.index(mistake["row"])
        assert result.test_texts[at].startswith(mistake["text"].rstrip("…"))
        assert mistake["coded"] == result.categories[result.test_true[at]] != mistake["predicted"]
        assert mistake["confidence"] == pytest.approx(best.probabilities[at][best.predictions[at]])
    confidences = [m["confidence"] for m in facts["mistakes"]]
    assert confidences == sorted(confidences, reverse=True)


def test_words_come_from_the_linear_model_s_own_weights(study) -> None:
    facts = report_card_facts(study)
    if facts["model"]["name"] != study.result.models[1].name:
        pytest.skip("the linear model was not recommended on this draw")
    words = facts["words"]
    assert words["source"] == "model weights"
    health = [word for word, _ in words["per_category"]["health"]]
    assert {"hospital", "doctors", "patients", "medicine"} & set(health)  # stems written as the texts write them
    from guiapp.core.explain.corpus_words import linear_coefficients
    from guiapp.core.predict.open_model import open_trained_model

    model = open_trained_model(study.model_folder(facts["model"]["name"]), facts["model"]["name"])
    own = [round(weight, 4) for weight in linear_coefficients(model, top=8)["health"].values() if weight > 0]
    assert [weight for _, weight in words["per_category"]["health"]] == own


def test_the_team_s_agreement_is_shown_beside_the_model_s(study, tmp_path) -> None:
    labels = [str(v) for v in study.table["label"]]
    study.codings = team_log(labels)
    try:
        facts = report_card_facts(study)
    finally:
        study.codings = CodingLog()
    coders = facts["agreement"]["coders"]
    assert coders["who"] == "team" and coders["coders"] == CODERS
    from guiapp.core.coding.team_report import team_agreement_of_log
    expected = team_agreement_of_log(team_log(labels))
    assert coders["alpha"] == pytest.approx(expected.alpha, abs=1e-4)
    assert facts["training"]["coded_in_textlab"]["coders"] == CODERS
    assert facts["training"]["coded_in_textlab"]["codebook_version"] == 1
    page = render_report_card(facts)
    assert "The coding team (Ann, Ben)" in page and f"{coders['alpha']:.2f}" in page


def test_a_project_without_a_run_is_refused_in_words(study) -> None:
    empty = Project(spec=study.spec, table=study.table)
    with pytest.raises(UserError, match="no finished run"):
        report_card_facts(empty)


def test_category_intervals_bracket_each_f1_and_leave_absent_categories_out() -> None:
    truth, predicted = [0] * 20 + [1] * 20, [0] * 18 + [1] * 2 + [1] * 15 + [0] * 5
    intervals = category_f1_intervals(truth, predicted, 3, 300, seed=1)
    assert intervals[2] is None
    low, high = intervals[0]
    assert low < 2 * 18 / (2 * 18 + 2 + 5) < high


def test_a_second_coder_s_agreement_is_shown_beside_the_model_s(study) -> None:
    from guiapp.core.coding.coding_record import SECOND_CODER
    from guiapp.core.coding.second_coder import compare_coders, split_by_coder

    labels = [str(v) for v in study.table["label"]]
    log = CodingLog()
    for row, label in enumerate(labels[:40]):
        log.record(row, label, coder="Ann", chosen_by="manual")
    for row, label in enumerate(labels[:20]):
        log.record(row, "energy" if row % 5 == 0 else label, coder="Cem", chosen_by=SECOND_CODER)
    study.codings = log
    try:
        facts = report_card_facts(study)
    finally:
        study.codings = CodingLog()
    coders = facts["agreement"]["coders"]
    first, second = split_by_coder(log.entries)
    expected = compare_coders(first, second, samples=200, seed=7)
    assert coders["who"] == "second coder" and coders["n_texts"] == 20
    assert (coders["alpha"], coders["kappa"]) == (expected.alpha, expected.kappa)
    assert coders["alpha_ci"] == list(expected.alpha_interval)
    assert "The two coders (second coder's sample" in render_report_card(facts)


def test_without_the_model_s_weights_the_words_come_from_its_explanations(study, tmp_path) -> None:
    from dataclasses import replace

    from guiapp.core.explain.cache import ExplanationCache, cache_files
    from guiapp.core.explain.linear_contributions import explain_linear
    from guiapp.core.predict.open_model import open_trained_model

    result = study.result
    best = result.best()
    model = open_trained_model(study.model_folder(best.name), best.name)
    cache = ExplanationCache(tmp_path)
    for text, said in zip(result.test_texts[:30], best.predictions[:30], strict=True):
        cache.put_attribution(text, explain_linear(model, text, int(said)))
    cache.save()
    explained = replace(study, model_folders={}, explanations=cache_files(tmp_path))
    words = report_card_facts(explained)["words"]
    assert words["source"] == "explanations" and words["documents"] == 30
    assert words["per_category"] and all(score > 0 for rows in words["per_category"].values() for _, score in rows)
    assert "over 30 explained texts" in render_report_card(report_card_facts(explained))
    nothing = replace(study, model_folders={}, explanations={})
    assert report_card_facts(nothing)["words"]["per_category"] == {}
    assert "explain some test texts on the Documents step" in render_report_card(report_card_facts(nothing))


def test_a_saved_and_reopened_project_gives_the_same_card(study, tmp_path) -> None:
    from dataclasses import replace

    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project

    team = replace(study, codings=team_log([str(v) for v in study.table["label"]]))
    path = save_project(tmp_path / "bills.textlab", team)
    reopened = open_project(path, extract_models_to=tmp_path / "models")
    before, after = report_card_facts(team), report_card_facts(reopened)
    for facts in (before, after):
        facts["training"].pop("source_name"), facts["training"].pop("source_sha256")
    assert after == before
    assert after["words"]["source"] == "model weights" and after["agreement"]["coders"]["who"] == "team"


def test_a_study_where_a_text_can_have_several_categories_gets_a_card(tmp_path) -> None:
    import shutil
    from pathlib import Path

    import pandas as pd

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "multi_label_small.csv"
    source = tmp_path / "coded.csv"
    shutil.copy(fixture, source)
    table = pd.read_csv(source)
    categories = [column for column in table.columns if column not in ("text", "id")]
    spec = ExperimentSpec(
        name="several categories",
        data=DataSpec(source=str(source), mapping=ColumnMapping(text_columns=["text"], multi_label=True,
                                                                category_columns=categories)),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=100),
        models=[ModelSpec("bow", "logistic_regression", grid={"C": [1.0]})], seed=3,
    )
    result = run_experiment(spec, n_jobs=1, artefacts_dir=tmp_path / "models")
    project = Project(spec=spec, table=table, result=result, model_folders=model_folders_of(result))
    facts = report_card_facts(project)
    best = result.best()
    assert facts["multi_label"] and facts["overall"]["macro_f1"] == best.test.macro_f1
    for row, scores in zip(facts["per_category"], best.test.per_category, strict=True):
        assert row["f1_ci"] == (list(scores.f1_ci) if scores.f1_ci else None)
    for row in facts["confusions"]:
        k = result.categories.index(row["coded"])
        (_, added), (missed, _) = best.test.category_confusions[k]
        assert (row["missed"], row["added"]) == (missed, added)
    page = render_report_card(facts)
    assert "Added wrongly" in page or not facts["confusions"]
