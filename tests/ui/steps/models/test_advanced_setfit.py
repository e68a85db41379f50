"""The "SetFit" tab of the Advanced dialog: SetFit's settings to try and training options, checked as
they are typed, carried into SetFit's model on the Models step and taken over from an opened study."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.ui.steps.models.models_page import ModelsPage
from guiapp.ui.steps.models.advanced_settings import AdvancedSettingsDialog, StudySettings
from tests.ui.sample_reports import categories, ready_report

DATA = DataSpec("/data/speeches.xlsx", "Speeches", "", ColumnMapping(["Text"], "Topic"))
TOPICS = [("Economy", 120), ("Health", 90), ("Defense", 60), ("Law", 30)]
SETFIT = ("setfit", "setfit")
SETFIT_TAB = 4


@pytest.fixture
def page(qtbot):
    widget = ModelsPage()
    qtbot.addWidget(widget)
    widget.resize(1100, 900)
    widget.show()
    widget.set_data(DATA, ready_report(n_rows=300, n_coded=300, categories=categories(TOPICS)))
    return widget


def tick_setfit(page):
    box = page.few_shot.checkbox(*SETFIT)
    if not box.isChecked():
        box.click()


def setfit_of(spec: ExperimentSpec) -> ModelSpec:
    return next(model for model in spec.models if (model.representation, model.classifier) == SETFIT)


def open_tab(page):
    dialog = page.open_advanced()
    dialog.tabs.setCurrentIndex(SETFIT_TAB)
    return dialog, dialog.setfit_tab


def test_the_tab_shows_setfits_defaults_and_writes_nothing_back(page, qtbot):
    tick_setfit(page)
    dialog, tab = open_tab(page)
    assert dialog.tabs.tabText(SETFIT_TAB) == "SetFit" and dialog.tabs.tabText(3) == "Transformer"
    assert [tab.fields[name].edit.text() for name in ("epochs", "pairs_per_text", "learning_rate")] == [
        "1", "20", "2e-5"]
    assert tab.max_pairs.value() == 5000 and tab.max_pairs.text() == "5,000 pairs"
    assert tab.max_length.currentData() == 128 and "the default" in tab.max_length.currentText()
    assert tab.batch_size.value() == 16 and tab.device.currentData() == "auto"
    assert tab.device.itemText(0) == "Automatic: the GPU when there is one, else the processor"
    intro = tab.findChild(type(tab.count), "setfitTabIntro").text()
    assert "only when “Few coded texts (SetFit)” is ticked" in intro and "multiplies" in intro
    assert tab.count.text().startswith("1 setting.")
    assert "pairs of coded texts" in tab.max_pairs.toolTip()  # the researcher's words, from the core's help
    assert dialog.ok_button.isEnabled()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert "setfit" not in page.settings.options and "setfit" not in page.settings.grids
    setfit = setfit_of(page.build_spec())
    assert setfit.representation_options == {} and setfit.grid == {}


def test_edited_settings_reach_setfits_model_and_its_estimate(page, qtbot):
    tick_setfit(page)
    estimate, total = page.few_shot.estimate(SETFIT), page.estimate_label.text()
    dialog, tab = open_tab(page)
    epochs = tab.fields["epochs"].edit
    epochs.clear()
    qtbot.keyClicks(epochs, "1, 2, 3")
    tab.fields["learning_rate"].edit.setText("2e-5; 0.00005")
    assert tab.count.text().startswith("3 × 1 × 2 = 6 settings")
    assert "about 6 times the training time" in tab.count.text()
    tab.max_length.setCurrentIndex(tab.max_length.findData(256))
    tab.batch_size.setValue(32)
    tab.device.setCurrentIndex(tab.device.findData("cpu"))
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    assert page.settings.grids["setfit"] == {"epochs": [1, 2, 3], "learning_rate": [2e-5, 5e-5]}
    setfit = setfit_of(page.build_spec())
    assert setfit.representation_options == {"max_length": 256, "batch_size": 32, "device": "cpu"}
    assert setfit.grid == {"epochs": [1, 2, 3], "learning_rate": [2e-5, 5e-5]}
    setfit.check()  # what the window builds, the engine accepts
    # six settings of up to three epochs, on longer texts: SetFit's own figure and the whole run grow
    assert page.few_shot.estimate(SETFIT) != estimate and page.estimate_label.text() != total
    changes = page.changes_label.text()
    assert "SetFit: longest text, pairs per step, where it computes" in changes
    assert "SetFit settings to try: epochs, learning rates" in changes

    dialog, tab = open_tab(page)  # the dialog opens again with these values
    assert tab.fields["epochs"].edit.text() == "1, 2, 3" and tab.fields["learning_rate"].edit.text() == "2e-5, 5e-5"
    assert tab.max_length.currentData() == 256 and tab.device.currentData() == "cpu"
    tab.max_pairs.setValue(1000)  # fewer pairs per epoch: SetFit's figure shrinks again
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    before = page.few_shot.estimate(SETFIT)
    assert setfit_of(page.build_spec()).representation_options["max_pairs"] == 1000
    dialog, tab = open_tab(page)
    tab.restore_grid.click()
    tab.restore_options.click()
    assert tab.fields["epochs"].edit.text() == "1" and tab.max_pairs.value() == 5000
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    setfit = setfit_of(page.build_spec())
    assert setfit.representation_options == {} and setfit.grid == {}
    assert page.few_shot.estimate(SETFIT) == estimate != before
    assert "SetFit" not in page.changes_label.text()


@pytest.mark.parametrize(("field", "text", "message"), [
    ("epochs", "0", "0 is out of range: the number of epochs must be a whole number from 1 to 100."),
    ("epochs", "2.5", "2.5 is not a whole number"),
    ("pairs_per_text", "20, 5000", "5000 is out of range"),
    ("pairs_per_text", "", "Give at least one number of pairs per text."),
    ("learning_rate", "2e-5, abc", "“abc” is not a number"),
    ("learning_rate", "1", "1 cannot be a learning rate: learning rates lie between 0 and 1"),
])
def test_wrong_values_are_explained_beside_the_field_and_block_ok(page, qtbot, field, text, message):
    dialog, tab = open_tab(page)
    grid_field = tab.fields[field]
    grid_field.edit.clear()
    qtbot.keyClicks(grid_field.edit, text)
    assert grid_field.error.isVisible() and message in grid_field.error.text()
    assert not dialog.ok_button.isEnabled()
    assert "“SetFit”" in dialog.problem.text() and dialog.problem.isVisible()
    assert tab.count.text().startswith("Correct the values marked in red")
    tab.restore_grid.click()
    assert not grid_field.error.isVisible() and dialog.ok_button.isEnabled() and not dialog.problem.isVisible()
    dialog.reject()


def test_an_opened_study_shows_its_setfit_settings_and_keeps_them(page, qtbot, tmp_path):
    folder = str(tmp_path / "my-sentence-model")
    options = {"model": folder, "max_length": 64, "max_pairs": 300, "batch_size": 16}  # 16: the default
    grid = {"epochs": [2, 1], "pairs_per_text": [20], "learning_rate": [1e-5, 3e-5]}  # 20: the default
    spec = ExperimentSpec(data=DATA, name="few", models=[ModelSpec("bow", "svm"), ModelSpec("setfit", "setfit",
                                                                                            options, grid)])
    spec = ExperimentSpec.from_toml(spec.to_toml())
    page.load_spec(spec)
    assert page.few_shot.checkbox(*SETFIT).isChecked() and page.load_notes == ""
    assert page.settings.options["setfit"] == {"max_length": 64, "max_pairs": 300}  # defaults are not kept
    assert page.settings.grids["setfit"] == {"epochs": [2, 1], "learning_rate": [1e-5, 3e-5]}
    built = setfit_of(page.build_spec())
    assert built.representation_options == {"model": folder, "max_length": 64, "max_pairs": 300}
    assert built.grid == {"epochs": [2, 1], "learning_rate": [1e-5, 3e-5]}

    dialog, tab = open_tab(page)
    assert tab.fields["epochs"].edit.text() == "2, 1" and tab.fields["pairs_per_text"].edit.text() == "20"
    assert tab.fields["learning_rate"].edit.text() == "1e-5, 3e-5"
    assert tab.max_length.currentData() == 64 and tab.max_pairs.value() == 300
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)  # OK without a change keeps them
    again = page.build_spec()
    assert setfit_of(again).to_dict() == built.to_dict()
    assert ExperimentSpec.from_toml(again.to_toml()).to_dict() == again.to_dict()


def test_a_longest_text_the_list_lacks_is_shown_and_kept(qtbot):
    settings = StudySettings(options={"setfit": {"max_length": 100}})
    dialog = AdvancedSettingsDialog(settings)
    qtbot.addWidget(dialog)
    tab = dialog.setfit_tab
    assert tab.max_length.currentData() == 100 and tab.max_length.currentText() == "100 tokens"
    assert dialog.settings().options == {"setfit": {"max_length": 100}}


def test_a_study_without_setfit_is_unchanged(page, qtbot):
    before = page.build_spec()
    assert SETFIT not in [(model.representation, model.classifier) for model in before.models]
    dialog, tab = open_tab(page)
    tab.fields["epochs"].edit.setText("1, 2")
    tab.max_pairs.setValue(800)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    after = page.build_spec()
    assert [model.to_dict() for model in after.models] == [model.to_dict() for model in before.models]
    assert after.evaluation == before.evaluation and after.seed == before.seed
    tick_setfit(page)  # ticked later, it takes the edited settings
    setfit = setfit_of(page.build_spec())
    assert setfit.grid == {"epochs": [1, 2]} and setfit.representation_options == {"max_pairs": 800}
