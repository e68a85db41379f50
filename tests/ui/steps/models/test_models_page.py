"""The Models step on its own: ticks, estimates, the Run button and the Advanced dialog."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from guiapp.core.health.findings import HealthIssue
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import (
    DEFAULT_MODELS,
    EvaluationSpec,
    ModelSpec,
    available_models,
)
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.split_sizes import split_column_sizes as split_counts
from guiapp.ui.steps.models.models_page import ModelsPage
from tests.ui.sample_reports import POLICY_TOPICS, categories, ready_report

DATA = DataSpec("/data/us_congress_bills.xlsx", "Bills", "", ColumnMapping(["Title"], "Topic"))


def bills_report(**changes):
    return ready_report(n_rows=4449, n_coded=4449, categories=categories(POLICY_TOPICS), **changes)


@pytest.fixture
def page(qtbot):
    widget = ModelsPage()
    qtbot.addWidget(widget)
    widget.resize(1100, 800)
    widget.show()
    widget.set_data(DATA, bills_report())
    return widget


def tick(page, representation, classifier, checked=True):
    box = page.choice.checkbox(representation, classifier)
    if box.isChecked() != checked:
        box.click()


def test_default_ticks_are_the_suggested_models(page):
    assert page.checked_models() == list(DEFAULT_MODELS)
    for pair in available_models():
        if pair == ("transformer", "fine_tune"):  # its own section, below the grid, not pre-ticked
            assert not page.transformer.is_checked()
            continue
        assert page.choice.checkbox(*pair).isChecked() == (pair in DEFAULT_MODELS)
    assert page.run_button.text() == "Run 3 models" and page.run_button.isEnabled()
    assert page.reason_label.text() == ""


def test_naive_bayes_only_with_the_bag_of_words(page):
    assert page.choice.checkbox("bow", "naive_bayes") is not None
    for representation in ("word_vectors", "sentence_embeddings"):
        assert page.choice.checkbox(representation, "naive_bayes") is None
        dash = page.choice.dash(representation, "naive_bayes")
        assert dash.isVisible() and dash.text() == "—"
        assert "only works with the bag of words" in dash.toolTip()
    page.choice.all_button.click()
    assert len(page.checked_models()) == len(available_models()) - 1 == 10  # all but the Transformer
    assert ("word_vectors", "naive_bayes") not in page.checked_models()


def test_clicking_a_cell_ticks_its_model(page, qtbot):
    box = page.choice.checkbox("bow", "xgboost")
    cell = box.parentWidget()
    qtbot.mouseClick(cell, Qt.MouseButton.LeftButton, pos=cell.rect().center())
    assert box.isChecked() and page.run_button.text() == "Run 4 models"
    qtbot.mouseClick(cell, Qt.MouseButton.LeftButton, pos=cell.rect().center())
    assert not box.isChecked()


def test_run_button_follows_the_ticks(page, qtbot):
    page.choice.none_button.click()
    assert page.run_button.text() == "Run models" and not page.run_button.isEnabled()
    assert page.reason_label.text() == "Tick at least one model above."
    tick(page, "bow", "naive_bayes")
    assert page.run_button.text() == "Run 1 model" and page.run_button.isEnabled()
    tick(page, "bow", "xgboost")
    assert page.run_button.text() == "Run 2 models"
    with qtbot.waitSignal(page.runRequested) as signal:
        page.run_button.click()
    spec = signal.args[0]
    assert isinstance(spec, ExperimentSpec)
    assert [(m.representation, m.classifier) for m in spec.models] == [("bow", "xgboost"), ("bow", "naive_bayes")]
    assert spec.data.mapping.category_column == "Topic" and spec.name == "us_congress_bills"


@pytest.mark.parametrize(
    ("data", "report", "reason"),
    [
        (None, None, "Open your coded texts on the Data step first."),
        (DataSpec("/d/x.csv", None, "", ColumnMapping(["text"])), None, "Choose a category column on the Data step first."),
        (DATA, None, "Wait until the check of your data on the Data step has finished."),
        (DATA, "not ready", "Fix the problems marked in red on the Data step first."),
    ],
)
def test_run_button_says_why_the_data_is_not_ready(page, data, report, reason):
    if report == "not ready":
        issue = HealthIssue("error", "one_category", "Only one category", "…", "…")
        report = bills_report(issues=(issue,))
    page.set_data(data, report)
    assert not page.run_button.isEnabled()
    assert page.reason_label.text() == reason and page.run_button.toolTip() == reason
    assert page.not_ready_reason() == reason
    page.set_data(DATA, bills_report())
    assert page.run_button.isEnabled() and page.reason_label.text() == ""


def test_estimates_follow_the_ticks(page):
    summary = page.estimate_label.text()
    assert summary.startswith("All 3 models: ") and summary.endswith(" on this computer.")
    # every model that can run shows its expected time next to its checkbox
    assert page.choice.estimate(("bow", "xgboost")).startswith(("about", "under"))
    page.choice.none_button.click()
    assert page.estimate_label.text() == "No model is ticked yet."
    tick(page, "bow", "naive_bayes")
    assert page.estimate_label.text() == "1 model: under a minute on this computer."
    tick(page, "sentence_embeddings", "xgboost")
    tick(page, "word_vectors", "xgboost")
    assert page.estimate_label.text().startswith("All 3 models: about ")
    assert page.estimate_label.text() != summary


def test_estimates_wait_for_the_data(page):
    page.set_data(None, None)
    assert page.choice.estimate(("bow", "svm")) == ""
    assert "once your data is checked" in page.estimate_label.text()


def test_data_summary_and_evaluation_sentence(page):
    assert page.data_label.text() == (
        "4,449 coded texts in 20 categories: 3,114 to train and tune the models, "
        "1,335 kept aside at random for the final test."
    )
    assert page.evaluation_label.plain_text() == (
        "30 % of the coded texts are kept aside for the final test; settings are tuned by 5-fold "
        "cross-validation on the rest; smaller categories are not oversampled. Two combined models of the "
        "ticked models (a weighted vote and a stacking) are built too, and tested like the others."
    )
    assert "Cross-validation:" in page.evaluation_label.toolTip()  # the jargon is explained
    assert not page.changes_label.isVisible()


def test_split_column_counts_come_from_the_table(page):
    frame = pd.DataFrame({
        "text": [f"text {i}" for i in range(10)],
        "label": ["a", "b"] * 4 + [None, "a"],
        "part": ["train"] * 6 + ["test"] * 4,
    })
    mapping = ColumnMapping(["text"], "label", split_column="part")
    assert split_counts(frame, mapping) == (6, 3)
    page.set_data(DataSpec("/d/x.csv", None, "", mapping), ready_report(n_rows=10, n_coded=9), frame)
    assert "6 to train and tune the models, 3 kept aside in your split column" in page.data_label.text()
    assert page.evaluation_label.plain_text().startswith(
        "The texts marked as test in your split column “part” are kept aside for the final test;"
    )
    dialog = page.open_advanced()
    assert not dialog.test_tab.test_share.isEnabled()
    assert "split column “part”" in dialog.test_tab.notes["testShare"].text()
    dialog.reject()


def test_advanced_dialog_changes_the_spec(page, qtbot):
    before = page.estimate_label.text()
    dialog = page.open_advanced()
    assert dialog.isVisible() and dialog.tabs.count() == 5
    tests = dialog.test_tab
    tests.folds.setValue(10)
    assert not tests.ratio.isEnabled()
    tests.oversampling.setCurrentIndex(tests.oversampling.findData("random"))
    assert tests.ratio.isEnabled()
    tests.ratio.setValue(50)
    tests.seed.setValue(7)
    stem = dialog.findChild(type(dialog.preprocessing_tab.boxes["bow"].editors["stem_language"].widget), "option_stem_language")
    stem.setCurrentIndex(stem.findData("german"))
    c_field = dialog.grids_tab.boxes["svm"].fields["C"].edit
    c_field.clear()
    qtbot.keyClicks(c_field, "1, 10")
    assert dialog.grids_tab.boxes["svm"].count.text().startswith("8 settings × 10 folds = 80 fits")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    spec = page.build_spec()
    assert spec.evaluation.folds == 10
    assert spec.evaluation.oversampling == "random" and spec.evaluation.oversampling_ratio == 0.5
    assert spec.seed == 7
    bow_svm = spec.models[0]
    assert (bow_svm.representation, bow_svm.classifier) == ("bow", "svm")
    assert bow_svm.representation_options == {"stem_language": "german"}
    assert bow_svm.grid == {"C": [1.0, 10.0]}
    assert spec.models[1].grid == {"C": [1.0, 10.0]}  # the other SVM model shares the grid
    assert spec.models[2].grid == {} and spec.models[2].representation_options == {}
    for model in spec.models:
        model.check()
    # the page tells what changed and how
    assert "10-fold" in page.evaluation_label.plain_text()
    assert "oversampled at random to 50 % of the largest one" in page.evaluation_label.plain_text()
    assert page.changes_label.isVisible()
    assert "Basic BOW: stemming" in page.changes_label.text() and "SVM settings to try: C (strictness)" in page.changes_label.text()
    assert page.estimate_label.text() != before  # ten folds and oversampling take longer


def test_cancel_keeps_the_old_settings(page):
    dialog = page.open_advanced()
    dialog.test_tab.folds.setValue(3)
    dialog.reject()
    assert page.build_spec().evaluation.folds == 5


def test_restore_the_default_protocol(page, qtbot):
    dialog = page.open_advanced()
    dialog.test_tab.folds.setValue(3)
    dialog.test_tab.seed.setValue(1)
    dialog.test_tab.restore.click()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    spec = page.build_spec()
    assert spec.evaluation.to_dict() == EvaluationSpec().to_dict() and spec.seed == ExperimentSpec().seed


@pytest.mark.parametrize(("text", "message"), [("abc", "must be a number, not 'abc'"), ("-1", "must be larger than 0")])
def test_a_wrong_grid_value_is_explained_inline_and_blocks_ok(page, qtbot, text, message):
    dialog = page.open_advanced()
    dialog.tabs.setCurrentIndex(2)
    field = dialog.grids_tab.boxes["svm"].fields["C"]
    field.edit.clear()
    qtbot.keyClicks(field.edit, f"0.1, {text}")
    assert field.error.isVisible() and message in field.error.text()
    assert not dialog.ok_button.isEnabled()
    assert "“Settings to try”" in dialog.problem.text() and dialog.problem.isVisible()
    assert "Correct the values" in dialog.grids_tab.boxes["svm"].count.text()
    field.edit.setText("0.1, 1")
    assert not field.error.isVisible() and dialog.ok_button.isEnabled() and not dialog.problem.isVisible()
    dialog.reject()


def test_no_kernel_ticked_is_explained(page):
    dialog = page.open_advanced()
    dialog.tabs.setCurrentIndex(2)
    field = dialog.grids_tab.boxes["svm"].fields["kernel"]
    for box in field.choices.values():
        box.setChecked(False)
    assert field.error.isVisible() and "tick at least one" in field.error.text()
    assert not dialog.ok_button.isEnabled()
    dialog.grids_tab.boxes["svm"].restore.click()
    assert dialog.ok_button.isEnabled() and field.choices["rbf"].isChecked()
    dialog.reject()


def test_a_wrong_preprocessing_choice_is_explained_inline(page):
    dialog = page.open_advanced()
    dialog.tabs.setCurrentIndex(1)
    box = dialog.preprocessing_tab.boxes["bow"]
    box.editors["min_df"].widget.setValue(50.0)  # more than the 33 % maximum
    assert box.error.isVisible() and "larger than the maximum" in box.error.text()
    assert not dialog.ok_button.isEnabled() and "“Preparing the texts”" in dialog.problem.text()
    box.restore.click()
    assert not box.error.isVisible() and dialog.ok_button.isEnabled()
    dialog.reject()


def test_character_pieces_switch_the_relevant_options(page):
    dialog = page.open_advanced()
    editors = dialog.preprocessing_tab.boxes["bow"].editors
    assert editors["stem_language"].widget.isEnabled() and not editors["char_ngram_min"].widget.isEnabled()
    analyzer = editors["analyzer"].widget
    analyzer.setCurrentIndex(analyzer.findData("char"))
    assert not editors["stem_language"].widget.isEnabled() and editors["char_ngram_max"].widget.isEnabled()
    dialog.reject()


def test_a_chosen_word_vector_file_goes_into_the_spec(page, qtbot, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    vectors = tmp_path / "glove.test.txt"
    vectors.write_text("tax 0.1 0.2\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kwargs: (str(vectors), ""))
    dialog = page.open_advanced()
    dialog.findChild(type(page.advanced_button), "option_vectors_choose").click()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    spec = page.build_spec()
    assert spec.models[1].representation == "word_vectors"
    assert spec.models[1].representation_options == {"vectors": str(vectors)}


def test_load_spec_round_trips(page, qtbot):
    dialog = page.open_advanced()
    dialog.test_tab.folds.setValue(4)
    dialog.test_tab.test_share.setValue(20)
    dialog.preprocessing_tab.boxes["bow"].editors["weighting"].widget.setCurrentIndex(2)
    dialog.preprocessing_tab.boxes["word_vectors"].editors["min_count"].widget.setValue(5)
    dialog.grids_tab.boxes["xgboost"].fields["n_estimators"].edit.setText("100")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    page.choice.all_button.click()
    spec = page.build_spec()

    other = ModelsPage()
    qtbot.addWidget(other)
    other.set_data(DATA, bills_report())
    other.load_spec(spec)
    assert other.build_spec().to_dict() == spec.to_dict()
    # and through a study file
    assert ExperimentSpec.from_json(spec.to_json()).to_dict() == spec.to_dict()


def test_load_spec_ticks_the_models_of_a_hand_written_study(page):
    spec = ExperimentSpec(
        data=DATA,
        name="ethos",
        seed=3,
        evaluation=EvaluationSpec(test_share=0.33, folds=5, oversampling="random"),
        models=[
            ModelSpec("bow", "naive_bayes", {"stem_language": "english", "min_df": 0.01}, {"alpha": [0.5, 1.0]}),
            ModelSpec("word_vectors", "xgboost"),
        ],
    )
    page.load_spec(spec)
    assert page.checked_models() == [("bow", "naive_bayes"), ("word_vectors", "xgboost")]
    built = page.build_spec()
    assert built.name == "ethos" and built.seed == 3
    assert built.evaluation.to_dict() == spec.evaluation.to_dict()
    assert built.models[0].representation_options == {"min_df": 0.01}  # the default stemming is left out
    assert built.models[0].grid == {"alpha": [0.5, 1.0]}
    dialog = page.open_advanced()
    assert dialog.preprocessing_tab.boxes["bow"].editors["min_df"].widget.value() == pytest.approx(1.0)
    assert dialog.grids_tab.boxes["naive_bayes"].fields["alpha"].edit.text() == "0.5, 1"
    assert dialog.test_tab.test_share.value() == 33
    dialog.reject()


def test_save_button_asks_the_window_to_save(page, qtbot):
    assert page.save_button.isEnabled()
    with qtbot.waitSignal(page.saveRequested):
        page.save_button.click()
    page.set_data(None, None)
    assert not page.save_button.isEnabled() and page.build_spec() is None


def test_missing_speeds_are_measured_once_in_the_background(qtbot, monkeypatch):
    """The estimate asks for a short measurement of what the per-machine cache lacks, then updates."""
    from guiapp.core.experiment.speed import speed_probe
    calls = []
    missing = {"keys": ["fit:bow:svm"]}
    monkeypatch.setattr(speed_probe, "missing_keys", lambda models, *args, **kwargs: list(missing["keys"]))

    def fake_measure(spec, spec_file=None, table=None, on_event=None, **kwargs):
        calls.append((len(spec.models), len(table)))
        missing["keys"] = []  # now in the cache
        return {"fit:bow:svm": 1.0}

    monkeypatch.setattr(speed_probe, "measure_study", fake_measure)
    monkeypatch.setattr(ModelsPage, "measure_in_background", True)
    widget = ModelsPage()
    qtbot.addWidget(widget)
    table = pd.DataFrame({"Title": ["a bill"] * 10, "Topic": ["x", "y"] * 5})
    widget.build_spec = lambda: ExperimentSpec(data=DATA, models=[ModelSpec("bow", "svm")])
    widget.session.frame = table
    widget.set_data(DATA, bills_report())
    assert "Measuring this computer's speed" in widget.estimate_label.text()
    qtbot.waitUntil(lambda: "Measuring" not in widget.estimate_label.text(), timeout=30000)
    qtbot.waitUntil(lambda: not widget.is_measuring(), timeout=30000)
    assert calls == [(1, 10)] and widget.estimate_label.text().endswith("on this computer.")
    widget._update_estimates()
    assert calls == [(1, 10)], "nothing left to measure: no second measurement"


def test_combined_models_and_the_transformer_choice_are_set_in_the_advanced_dialog(page, qtbot):
    dialog = page.open_advanced()
    assert dialog.test_tab.combine.isChecked()  # on by default
    dialog.test_tab.combine.setChecked(False)
    transformer = dialog.transformer_tab
    assert transformer.transformer_choice() == "cheapest within noise" and transformer.seeds_value() == 1
    transformer.choice.setCurrentIndex(transformer.choice.findData("best score"))
    transformer.seeds.setValue(3)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    spec = page.build_spec()
    assert not spec.evaluation.combine
    assert spec.evaluation.transformer_choice == "best score" and spec.evaluation.transformer_seeds == 3
    assert "combined models" not in page.evaluation_label.plain_text()
    assert "no combined models" in page.changes_label.text()
    assert "3 seeds" in page.changes_label.text() and "paper's rule" in page.changes_label.text()
    again = page.open_advanced()  # the dialog shows what the study holds
    assert not again.test_tab.combine.isChecked() and again.transformer_tab.seeds_value() == 3
    again.reject()


def test_tuned_thresholds_are_set_in_the_advanced_dialog(page, qtbot):
    dialog = page.open_advanced()
    assert not dialog.test_tab.tune_thresholds.isChecked()  # 0.5 for every category by default
    dialog.test_tab.tune_thresholds.setChecked(True)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert page.build_spec().evaluation.tune_thresholds
    assert "threshold tuned" in page.changes_label.text()
    again = page.open_advanced()
    assert again.test_tab.tune_thresholds.isChecked()
    again.reject()
