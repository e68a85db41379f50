"""The methods appendix: its facts equal the result's, its prose follows the split, the page is safe."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from guiapp.core.errors import UserError
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.export.appendix import (
    REFERENCE,
    appendix_paragraph,
    build_appendix,
    render_appendix_html,
    write_appendix,
)
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.synthetic_texts import coded_texts
from tests.ui.sample_results import (
    FAILED_MESSAGE,
    policy_result,
    result_with_transformer,
    sample_result,
)

ENVIRONMENT = {
    "textlab": "0.1.0", "gpu": "NVIDIA T4", "python": "3.11.7", "platform": "Linux", "processor": "x86_64",
    "cpu_count": 8, "worker_processes": 4,
    "packages": {"scikit-learn": "1.5.1", "xgboost": "2.1.0", "torch": "2.4.0", "transformers": "4.44.0"},
}


def test_json_holds_the_results_numbers_unchanged() -> None:
    result = sample_result()
    result.environment = dict(ENVIRONMENT)
    appendix = build_appendix(result, data_sha256="f" * 64)
    assert json.loads(json.dumps(appendix, allow_nan=False)) == appendix  # JSON-able as it is
    assert appendix["data"]["sha256"] == "f" * 64 and appendix["data"]["file"] == "manifestos.xlsx"
    assert appendix["data"]["coded_texts"] == result.split["n_train"] + result.split["n_test"]
    assert [c["test_texts"] for c in appendix["data"]["categories"]] == [560, 455, 320]
    assert appendix["split"]["n_test"] == 1335 and appendix["split"]["how"] == "random hold-out"
    assert appendix["evaluation"]["folds"] == 5 and appendix["evaluation"]["seed"] == result.spec["seed"]
    assert appendix["best_model"] == result.best().name
    assert appendix["software"]["packages"] == ENVIRONMENT["packages"]
    assert appendix["hardware"]["gpu"] == "NVIDIA T4" and appendix["hardware"]["cpu_count"] == 8
    for model, facts in zip(result.models, appendix["models"], strict=True):
        assert facts["name"] == model.name and facts["status"] == model.status
        if not model.ok:
            assert facts["message"] == FAILED_MESSAGE and "test" not in facts and "rank" not in facts
            continue
        chosen = next(point for point in model.grid if point.params == model.chosen_params)
        assert facts["chosen"] == model.chosen_params
        assert facts["cv_mean"] == chosen.mean and facts["cv_sd"] == chosen.std
        assert facts["cv_scores"] == model.cv_scores
        assert facts["n_settings"] == len(model.grid)
        assert facts["test"]["macro_f1"] == model.test.macro_f1
        assert facts["test"]["macro_f1_ci"] == list(model.test.macro_f1_ci)
        assert facts["test"]["ci_level"] == model.test.ci_level
        assert facts["test"]["accuracy"] == model.test.accuracy
        assert [c["f1"] for c in facts["per_category"]] == [c.f1 for c in model.test.per_category]
        assert facts["seconds"] == model.seconds
    assert appendix["models"][0]["grid"]["C"] == [0.1, 1.0, 10.0]  # read from the grid points


def test_unknown_facts_are_left_out_not_invented() -> None:
    result = sample_result()
    appendix = build_appendix(result)  # no environment, no checksum
    assert "sha256" not in appendix["data"] and "gpu" not in appendix.get("hardware", {})
    assert "textlab" not in appendix["software"]
    text = appendix_paragraph(appendix)
    assert "TextLab" not in text and "None" not in text and "nan" not in text.lower()


def test_extra_facts_are_merged_in() -> None:
    appendix = build_appendix(sample_result(), extra={"data": {"rows": 5000}, "funding": "none"})
    assert appendix["data"]["rows"] == 5000 and appendix["data"]["file"] == "manifestos.xlsx"
    assert appendix["funding"] == "none"
    assert "Rows in the table" in render_appendix_html(appendix)


def test_paragraph_names_the_best_model_and_its_interval() -> None:
    result = sample_result()
    text = appendix_paragraph(build_appendix(result))
    best = result.best()
    low, high = best.test.macro_f1_ci
    assert f"The best model, {best.name}," in text
    assert f"{best.test.macro_f1:.2f} (95% bootstrap confidence interval {low:.2f}–{high:.2f}" in text
    assert "on the 1,335 held-out test texts" in text
    assert "five models" in text and "Wankmüller (2022)" in text
    assert "stratified 5-fold cross-validation" in text and "macro-averaged F1" in text
    assert "XGBoost · Word vectors could not be trained" in text
    for model in result.ranked()[1:]:
        assert f"{model.test.macro_f1:.2f} for {model.name}" in text


def test_paragraph_for_one_model_and_for_a_transformer() -> None:
    single = sample_result(models=[("bow", "svm", 0.75)])
    text = appendix_paragraph(build_appendix(single))
    assert text.startswith("We trained one model, an SVM on a basic bag of words,")
    assert "best model" not in text and "other models" not in text

    result = result_with_transformer()
    result.environment = dict(ENVIRONMENT)
    text = appendix_paragraph(build_appendix(result))
    assert "a fine-tuned Transformer (all-MiniLM-L6-v2)" in text
    assert "The Transformer all-MiniLM-L6-v2 was fine-tuned with AdamW" in text
    assert "batches of 16" in text and "first 128 and the last 382 tokens" in text
    assert "one validation split (20% of the training texts)" in text
    assert "torch 2.4.0" in text and "NVIDIA T4 GPU" in text and "on 2 May 2024" in text


def test_oversampling_is_described_when_on() -> None:
    result = sample_result(models=[("bow", "svm", 0.75)])
    result.spec["evaluation"].update(oversampling="random", oversampling_ratio=0.25)
    appendix = build_appendix(result)
    assert appendix["evaluation"]["oversampling_ratio"] == 0.25
    assert "randomly oversampled to one quarter of the size of the largest category" in appendix_paragraph(appendix)


def _with_split(how: str) -> dict:
    result = sample_result(models=[("bow", "svm", 0.75)])
    result.split["how"] = how
    if how == "split column":
        result.spec["data"]["mapping"]["split_column"] = "Sample"
    if how == "test file":
        result.spec["data"]["test_source"] = "C:\\Users\\ana\\holdout.csv"
    return build_appendix(result)


@pytest.mark.parametrize(
    ("how", "expected", "absent"),
    [
        ("random", "stratified random 30% of the coded texts (1,335 texts) as the test set", "column"),
        ("split column", "3,115 training and 1,335 test texts as marked in our data (column Sample)", "random"),
        ("test file", "a separate file of 1,335 coded texts (holdout.csv) served as the test set", "random"),
    ],
)
def test_paragraph_follows_how_the_test_texts_were_chosen(how: str, expected: str, absent: str) -> None:
    text = appendix_paragraph(_with_split(how)).split("\n\n")[0]
    assert expected in text
    assert absent not in text
    assert "ana" not in text  # only the file's name, not the user's folders


def test_html_escapes_user_strings_and_is_self_contained() -> None:
    result = sample_result(categories=[("<script>alert(1)</script>", 200), ("A & B", 100)],
                           models=[("bow", "svm", 0.75), ("bow", "naive_bayes", 0.6)], name='"><img src=x>')
    result.models[0].name = "<b>mine</b>"
    page = render_appendix_html(build_appendix(result))
    assert "<script" not in page.lower() and "<img" not in page.lower() and "<b>mine" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "A &amp; B" in page
    assert "&lt;b&gt;mine&lt;/b&gt;" in page
    assert "@import" not in page and "url(" not in page

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set[str] = set()
            self.attributes: set[str] = set()

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.seen.add(tag)
            self.attributes.update(name for name, _ in attrs)

    tags = Tags()
    tags.feed(page)
    assert tags.seen <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "i", "br",
                         "table", "tr", "th", "td"}
    assert not tags.attributes & {"src", "href", "onload", "onclick"}  # nothing loaded, nothing run


def test_html_has_every_section_and_the_reference() -> None:
    result = policy_result()
    result.environment = dict(ENVIRONMENT)
    page = render_appendix_html(build_appendix(result))
    for heading in ("Suggested text", "Data", "Protocol", "Model comparison", "Settings per model",
                    "F1 per category", "Software and hardware", "References"):
        assert f">{heading}" in page
    assert "Sociological Methods &amp; Research" in page and "doi" not in page.lower()
    assert "Wankmüller" in REFERENCE["text"]
    best = result.best()
    assert f"{best.test.macro_f1:.3f}" in page and "20210401" in page


def test_write_appendix_writes_both_files_and_never_overwrites(tmp_path) -> None:
    result = sample_result(models=[("bow", "svm", 0.75)])
    html, data = write_appendix(result, tmp_path / "appendix.html", data_sha256="a" * 64)
    assert (html.name, data.name) == ("appendix.html", "appendix.json")
    assert json.loads(data.read_text("utf-8"))["data"]["sha256"] == "a" * 64
    assert html.read_text("utf-8").startswith("<!DOCTYPE html>")
    before = html.read_text("utf-8")
    with pytest.raises(UserError) as refused:
        write_appendix(result, tmp_path / "appendix.html")
    assert "already exist" in refused.value.message and refused.value.hint
    assert html.read_text("utf-8") == before
    data.unlink()  # one of the two is enough to refuse
    with pytest.raises(UserError):
        write_appendix(result, tmp_path / "appendix.html")
    assert not data.exists()
    write_appendix(result, tmp_path / "appendix.html", overwrite=True)
    assert data.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["appendix.html", "appendix.json"]  # no temp files


def test_a_real_run_gives_a_complete_appendix(tmp_path) -> None:
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=3),
        models=[ModelSpec("bow", "naive_bayes"), ModelSpec("bow", "logistic_regression", grid={"C": [1.0, 10.0]})],
        seed=5,
    )
    result = run_experiment(spec, table=coded_texts(120), n_jobs=1)
    appendix = build_appendix(result)
    assert appendix["software"]["textlab"] == result.environment["textlab"]
    assert appendix["models"][1]["grid"] == {"C": [1.0, 10.0]}
    assert appendix["models"][0]["options"]["min_df"] == 0.001
    text = appendix_paragraph(appendix)
    assert "stratified 3-fold cross-validation" in text and "All random steps used the seed 5." in text
    html, _ = write_appendix(result, tmp_path / "run")
    assert html.name == "run.html"
