"""The Models step's card "Language model with your codebook": where it runs (inside TextLab or on a
server, with consent for another computer), the server's list of models, the prompt settings, the exact
prompt for a sample text, the time estimate, and the study file's and the project's round trip."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.models.llm.codebook_prompt import INSTRUCTIONS
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import DEFAULT_MODELS, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.models.codebook_llm_choice import IN_TEXTLAB_PAIR, SERVER_PAIR
from guiapp.ui.steps.models.codebook_llm_prompt_settings import PromptSettings
from guiapp.ui.steps.models.models_page import ModelsPage
from tests.core.models.llm.test_codebook_model import tiny_lm
from tests.ui.sample_reports import categories, ready_report
from tests.ui.helpers import SCREENSHOTS

SERVER = Path(__file__).resolve().parents[3] / "core" / "models" / "llm" / "chat_test_server.py"
SHOTS = SCREENSHOTS  # gitignored
DATA = DataSpec("/data/speeches.xlsx", "Speeches", "", ColumnMapping(["Text"], "Topic"))
TOPICS = [("Economy", 120), ("Health", 90), ("Defense", 30)]
CODEBOOK = Codebook([
    CodebookCategory("Health", "Hospitals, doctors, medicines and health insurance.", ["More nurses now."]),
    CodebookCategory("Economy", "Taxes, prices, jobs and the state budget."),
    CodebookCategory("Defense", ""),
])


@pytest.fixture(scope="module")
def lm_folder(tmp_path_factory) -> str:
    return str(tiny_lm(tmp_path_factory.mktemp("codebook-lm") / "tiny-instruct"))


@pytest.fixture(scope="module")
def served():
    """A test language-model server on 127.0.0.1 (the word-counting model: it starts at once)."""
    process = subprocess.Popen([sys.executable, str(SERVER), "--model", "words"], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("PORT "), f"the test server did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()


@pytest.fixture
def page(qtbot):
    session = StudySession()
    session.set_codebook(CODEBOOK)
    widget = ModelsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1200, 1000)
    widget.show()
    widget.set_data(DATA, ready_report(n_rows=240, n_coded=240, categories=categories(TOPICS)))
    return widget


def spec_of(page) -> ModelSpec:
    specs = [m for m in page.build_spec().models if m.representation == "codebook_llm"]
    assert len(specs) == 1
    return specs[0]


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SHOTS / f"{name}.png"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_card_is_in_the_group_unticked_and_ticking_it_builds_a_model_the_engine_accepts(page, lm_folder):
    card = page.codebook
    assert card.box.text() == "Language model with your codebook" and not card.box.isChecked()
    assert page.checked_models() == list(DEFAULT_MODELS)
    assert "never treat its labels as the truth" in card.findChild(type(page.data_label), "sentence_codebook_llm").text()
    card.box.click()
    assert page.checked_models() == [*DEFAULT_MODELS, IN_TEXTLAB_PAIR]
    assert not page.run_button.isEnabled() and "Type the name of the language model" in page.reason_label.text()
    card.local.model_edit.setText(lm_folder)
    assert page.run_button.isEnabled(), page.reason_label.text()
    spec = spec_of(page)
    assert spec.representation_options == {
        "model": lm_folder, "sensitivity": 3,
        "descriptions": {"Health": "Hospitals, doctors, medicines and health insurance.",
                         "Economy": "Taxes, prices, jobs and the state budget."},
        "examples": {"Health": ["More nurses now."]}}
    assert spec.grid == {"k": [0, 2], "instruction": [0]}
    again = ModelSpec.from_dict(spec.to_dict())  # checked as the engine checks a study file
    assert again.to_dict() == spec.to_dict() and again.display_name == "Codebook language model (tiny-instruct)"
    assert "2 of 3 categories defined, 1 with example texts" in card.codebook_label.text()
    assert "language model with your codebook" in page.evaluation_label.plain_text()


def test_a_missing_folder_or_a_folder_without_a_language_model_is_said_in_words(page, tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "empty cache"))
    card = page.codebook
    card.box.click()
    card.local.model_edit.setText(str(tmp_path / "no such folder"))
    assert page.reason_label.text() == f"There is no folder {tmp_path / 'no such folder'} on this computer."
    assert card.problem_label.isVisibleTo(page) and "Choose the folder" in card.problem_label.text()
    (tmp_path / "empty").mkdir()
    card.local.model_edit.setText(str(tmp_path / "empty"))
    assert "holds no language model" in page.reason_label.text()
    card.local.model_edit.setText("someone/never-downloaded-instruct")
    assert page.reason_label.text() == "The language model someone/never-downloaded-instruct is not on this computer."
    row = card.local.download  # the card offers the download, with consent
    assert row.isVisibleTo(page) and row.button.isVisibleTo(page) and not card.problem_label.isVisibleTo(page)
    card.box.click()  # unticked: its settings stop mattering
    assert page.run_button.isEnabled()


def test_a_server_on_another_computer_blocks_the_run_until_the_texts_may_leave(page):
    card = page.codebook
    card.box.click()
    card.server_radio.click()
    assert page.checked_models()[-1] == SERVER_PAIR
    assert card.server.address() == "http://127.0.0.1:11434" and not card.server.consent_box.isVisibleTo(page)
    card.server.model_combo.setEditText("llama3.2")
    assert page.run_button.isEnabled(), page.reason_label.text()
    assert spec_of(page).representation_options["texts_may_leave_computer"] is False

    card.server.address_edit.setText("http://10.20.30.40:11434")
    assert not page.run_button.isEnabled()
    assert "not this computer" in page.reason_label.text() and "10.20.30.40" in page.reason_label.text()
    box = card.server.consent_box
    assert box.isVisibleTo(page) and "leave this computer" in box.text() and "10.20.30.40" in box.text()
    box.click()
    assert page.run_button.isEnabled(), page.reason_label.text()
    spec = ModelSpec.from_dict(spec_of(page).to_dict())
    assert spec.representation_options["texts_may_leave_computer"] is True
    assert spec.representation_options["address"] == "http://10.20.30.40:11434"
    assert spec.display_name == "Codebook language model (llama3.2 on a server)"
    card.server.address_edit.setText("not an address:xyz")
    assert not page.run_button.isEnabled() and page.reason_label.text()


def test_ask_the_server_fills_the_list_and_a_server_that_is_down_is_said_in_words(page, qtbot, served):
    card = page.codebook
    card.box.click()
    card.server_radio.click()
    fields = card.server
    fields.address_edit.setText(served)
    fields.kind_combo.setCurrentIndex(fields.kind_combo.findData("openai"))
    fields.ask_button.click()
    qtbot.waitUntil(lambda: not fields.is_busy() and fields.model_combo.count() > 0, timeout=10_000)
    assert fields.model() == "tiny-words" and "offers 1 model" in fields.answer_label.text()
    assert page.run_button.isEnabled()
    fields.kind_combo.setCurrentIndex(fields.kind_combo.findData("ollama"))
    fields.ask_button.click()
    qtbot.waitUntil(lambda: not fields.is_busy() and fields.model() == "tiny-words:latest", timeout=10_000)
    assert spec_of(page).representation_options["protocol"] == "ollama"

    fields.address_edit.setText(f"http://127.0.0.1:{free_port()}")  # nothing listens there
    fields.ask_button.click()
    qtbot.waitUntil(lambda: not fields.is_busy() and "No language-model server answers" in fields.answer_label.text(),
                    timeout=15_000)
    assert "Start Ollama" in fields.answer_label.text() and "Traceback" not in fields.answer_label.text()


def test_the_prompt_preview_holds_each_definition_and_the_instruction(page, qtbot, lm_folder):
    card = page.codebook
    card.box.click()
    card.local.model_edit.setText(lm_folder)
    dialog = card.open_preview()
    qtbot.waitUntil(dialog.isVisible)
    prompt = dialog.prompt()
    assert INSTRUCTIONS[0] in prompt
    assert "- Health: Hospitals, doctors, medicines and health insurance." in prompt
    assert "- Economy: Taxes, prices, jobs and the state budget." in prompt
    assert "- Defense" in prompt and "More nurses now." in prompt
    assert "The government will raise taxes" in prompt  # no table here: a short example text
    assert dialog.view.isReadOnly() and "zero-shot" in dialog.slots_label.text()
    assert [dialog.variant_combo.itemData(i) for i in range(dialog.variant_combo.count())] == [
        {"k": 0, "instruction": 0}, {"k": 2, "instruction": 0}]
    dialog.variant_combo.setCurrentIndex(1)
    assert dialog.prompt().count("‹coded training text") == 2 * 3
    assert "2 coded training texts per category" in dialog.slots_label.text()
    assert "not scored on" in dialog.slots_label.text()
    qtbot.wait(50)
    shot(dialog, "codebook_llm_prompt_preview")
    dialog.reject()


def test_the_prompt_settings_change_the_grid_and_the_preview(page, qtbot):
    card = page.codebook
    card.box.click()
    dialog = card.open_settings()
    qtbot.waitUntil(dialog.isVisible)
    dialog.k_boxes[4].click()
    dialog.wording_boxes[1].click()
    dialog.sensitivity_spin.setValue(2)
    qtbot.wait(50)
    shot(dialog, "codebook_llm_prompt_settings")
    dialog.accept()
    spec = spec_of(page)
    assert spec.grid == {"k": [0, 2, 4], "instruction": [0, 1]} and spec.representation_options["sensitivity"] == 2
    assert "6 prompts to compare" in card.prompt_label.text() and "under 2 wordings" in card.prompt_label.text()

    dialog = card.open_settings()
    dialog.own_radio.click()
    dialog.own_edit.setPlainText("")
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
    assert "instruction to the language model is empty" in dialog.problem_label.text()
    dialog.own_edit.setPlainText("Lies den Text und wähle die passende Kategorie.")
    dialog.accept()
    spec = spec_of(page)
    assert spec.grid == {"k": [0, 2, 4]}
    assert spec.representation_options["instruction"] == "Lies den Text und wähle die passende Kategorie."
    card.local.model_edit.setText("some/model")  # the model does not change the prompt
    preview = card.open_preview()
    assert "Lies den Text und wähle die passende Kategorie." in preview.prompt()
    assert INSTRUCTIONS[0] not in preview.prompt()
    preview.reject()
    assert PromptSettings(k=[]).problem().startswith("Tick at least one number")


def test_the_estimate_line_says_something_honest(page, lm_folder):
    card = page.codebook
    assert card.estimate()  # shown before it is ticked, too
    card.box.click()
    card.local.model_edit.setText(lm_folder)  # inside TextLab: from the model's size and the prompt's length
    assert card.estimate().endswith("on this computer"), card.estimate_label.toolTip()
    assert "Expected time on the processor: 2 prompts × 5 folds" in card.estimate_label.toolTip()
    assert page.estimate_label.text().startswith("All 4 models:")
    card.server_radio.click()  # a server's speed cannot be seen from here: said, and why
    card.server.model_combo.setEditText("llama3.2")
    assert card.estimate() == "time unknown"
    tip = card.estimate_label.toolTip()
    assert tip.endswith("The Run step shows the time left once the run starts.") and len(tip) > 80
    assert page.estimate_label.text().startswith("The other 3 models:")
    assert "cannot be estimated before it runs" in page.estimate_label.text()


def test_the_estimate_is_unknown_in_words_when_the_engine_cannot_estimate_it(page, monkeypatch):
    from guiapp.ui.steps.models import models_estimates

    known = models_estimates.estimate_seconds

    def no_figure(model, *args, **kwargs):
        if model.representation == "codebook_llm":
            raise ValueError("no figure for this family")
        return known(model, *args, **kwargs)

    monkeypatch.setattr(models_estimates, "estimate_seconds", no_figure)
    page.codebook.box.click()
    assert page.codebook.estimate() == "time unknown"
    assert "cannot be estimated before it runs" in page.estimate_label.text()


def test_every_setting_round_trips_through_the_study_file(page, qtbot, lm_folder):
    card = page.codebook
    card.box.click()
    card.server_radio.click()
    card.server.set_values("http://192.168.1.5:8080", "openai", "qwen2.5-7b-instruct", True)
    card.set_settings(PromptSettings(k=[0, 1, 8], wordings=[0, 2], sensitivity=1))
    page.few_shot.set_descriptions({"Defense": "Armies and weapons."})
    spec = page.build_spec()
    assert ExperimentSpec.from_toml(spec.to_toml()).to_dict() == spec.to_dict()

    other = ModelsPage()  # no codebook here: the study's sentences are all it knows
    qtbot.addWidget(other)
    other.set_data(DATA, ready_report(n_rows=240, n_coded=240, categories=categories(TOPICS)))
    other.load_spec(ExperimentSpec.from_toml(spec.to_toml()))
    assert other.checked_models() == [*DEFAULT_MODELS, SERVER_PAIR]
    assert other.build_spec().to_dict() == spec.to_dict()
    assert other.codebook.server.consent_box.isChecked() and other.codebook.server.model() == "qwen2.5-7b-instruct"
    assert other.codebook.settings == PromptSettings(k=[0, 1, 8], wordings=[0, 2], sensitivity=1)
    assert other.load_notes == "" and other.run_button.isEnabled()


def test_a_hand_written_study_keeps_what_the_step_does_not_show(page, lm_folder):
    spec = ExperimentSpec(data=DATA, name="llm", models=[
        ModelSpec("codebook_llm", "in_textlab", {"model": lm_folder, "device": "cpu", "batch_size": 2,
                                                 "instruction": "Code the text.",
                                                 "examples": {"Defense": ["Tanks."]}}, {"k": [3]}),
        ModelSpec("codebook_llm", "server", {"model": "m", "address": "http://127.0.0.1:8080"}),
    ])
    page.load_spec(spec)
    assert page.checked_models() == [IN_TEXTLAB_PAIR]
    assert "only the first is shown" in page.load_notes
    built = spec_of(page)
    assert built.grid == {"k": [3]}
    options = built.representation_options
    assert (options["device"], options["batch_size"], options["instruction"]) == ("cpu", 2, "Code the text.")
    assert options["examples"] == {"Health": ["More nurses now."], "Defense": ["Tanks."]}
    page.codebook.server_radio.click()  # a server has no device: the options it cannot take are left out
    page.codebook.server.model_combo.setEditText("llama3.2")
    server = ModelSpec.from_dict(spec_of(page).to_dict())
    assert "device" not in server.representation_options and server.grid == {"k": [3]}


def test_the_settings_survive_saving_and_reopening_the_project(qtbot, window, tmp_path, lm_folder):
    from guiapp.ui.main_window import MainWindow
    from tests.ui.helpers import wait_for_report

    window.open_example()
    wait_for_report(qtbot, window)
    page = window.models_page
    page.codebook.box.click()
    page.codebook.local.model_edit.setText(lm_folder)
    page.codebook.set_settings(PromptSettings(k=[0, 4], wordings=[1], sensitivity=2))
    assert page.run_button.isEnabled(), page.reason_label.text()
    before = spec_of(page).to_dict()
    preview = page.codebook.open_preview()  # the example study's own first coded text
    qtbot.waitUntil(preview.isVisible)
    first = window.session.frame[window.session.mapping.text_columns[0]].iloc[0]
    assert "first coded text of your table (row 1)" in preview.findChild(QLabel, "promptPreviewIntro").text()
    assert str(first).strip()[:40] in preview.prompt()
    assert "(The same is asked" not in preview.prompt()  # one category per text: one question
    qtbot.wait(50)
    shot(preview, "codebook_llm_prompt_preview_example_study")
    preview.reject()
    path = tmp_path / "llm.textlab"
    assert window.project.save_and_wait(path)

    again = MainWindow()
    again.files.ask_before_closing = False
    qtbot.addWidget(again)
    again.open_project(path)
    qtbot.waitUntil(lambda: not again.project.is_busy() and again.models_page.codebook.is_checked(), timeout=60_000)
    reopened = again.models_page
    assert reopened.codebook.local.model() == lm_folder
    assert reopened.codebook.settings == PromptSettings(k=[0, 4], wordings=[1], sensitivity=2)
    assert spec_of(reopened).to_dict() == before


def test_screenshots_of_the_card_both_ways(page, qtbot, lm_folder):
    page.resize(1280, 1300)
    card = page.codebook
    card.box.click()
    card.local.model_edit.setText("Qwen/Qwen2.5-0.5B-Instruct")
    page.scroll.verticalScrollBar().setValue(page.scroll.verticalScrollBar().maximum())
    qtbot.wait(30)
    shot(page, "codebook_llm_in_textlab")
    card.server_radio.click()
    card.server.address_edit.setText("http://10.0.0.7:11434")
    card.server.model_combo.setEditText("llama3.2")
    page.scroll.verticalScrollBar().setValue(page.scroll.verticalScrollBar().maximum())
    qtbot.wait(30)
    shot(page, "codebook_llm_on_server")


def test_differing_descriptions_of_the_zero_shot_and_the_codebook_model_are_named(page):
    spec = ExperimentSpec(data=DATA, name="both", models=[
        ModelSpec("zero_shot", "similarity", {"descriptions": {"Health": "Doctors."}}),
        ModelSpec("codebook_llm", "server", {"model": "m", "address": "http://127.0.0.1:8080",
                                             "descriptions": {"Health": "Hospitals."}}),
    ])
    page.load_spec(spec)
    assert "describe the categories differently" in page.load_notes
    assert spec_of(page).representation_options["descriptions"]["Health"] == "Doctors."


def test_a_folder_with_a_model_that_does_not_write_text_is_said_in_words(page, tmp_path):
    import json

    folder = tmp_path / "bert-classifier"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert",
                                                    "architectures": ["BertForSequenceClassification"]}))
    page.codebook.box.click()
    page.codebook.local.model_edit.setText(str(folder))
    assert "does not write text" in page.reason_label.text() and not page.run_button.isEnabled()
    assert "instruction-tuned" in page.codebook.problem_label.text()


def test_a_named_language_model_is_downloaded_with_consent_then_the_study_can_run(page, qtbot, monkeypatch):
    from guiapp.core.events import Progress
    from guiapp.core.models.transformers.sources import resolve as model_sources

    downloaded: list[str] = []
    name = "Qwen/Qwen2.5-0.5B-Instruct"
    monkeypatch.setattr(model_sources, "needs_download", lambda source, cache_dir=None: source == name
                        and source not in downloaded)

    def fake_download(source, on_event):
        on_event(Progress(0.5, "500 of 1,000 MB"))
        downloaded.append(source)
        return "/models/qwen"

    monkeypatch.setattr(model_sources, "download_model", fake_download)
    card = page.codebook
    card.box.click()
    card.local.model_edit.setText(name)
    assert not page.run_button.isEnabled() and downloaded == []  # nothing goes online before the click
    row = card.local.download
    row.button.click()
    qtbot.waitUntil(lambda: "downloaded and ready" in row.label.text(), timeout=30_000)
    qtbot.waitUntil(lambda: not row.is_busy())
    assert downloaded == [name]
    qtbot.waitUntil(lambda: page.run_button.isEnabled())
    assert spec_of(page).representation_options["model"] == name


def test_what_the_card_builds_runs_in_the_engine(qtbot, lm_folder, tmp_path):
    import dataclasses

    from guiapp.core.experiment.run.runner import run_experiment
    from tests.core.synthetic_texts import coded_texts

    session = StudySession()
    session.set_codebook(Codebook([CodebookCategory("health", "hospitals, doctors and patients", ["A new clinic."])]))
    page = ModelsPage(session=session)
    qtbot.addWidget(page)
    mapping = ColumnMapping(["text"], "label")
    page.set_data(DataSpec("texts.csv", None, "", mapping),
                  ready_report(n_rows=36, n_coded=36, categories=categories([("health", 22), ("defence", 8),
                                                                             ("energy", 6)])))
    page.choice.set_checked([])
    page.codebook.box.click()
    page.codebook.local.model_edit.setText(lm_folder)
    page.codebook.set_settings(PromptSettings(k=[0, 1], wordings=[0], sensitivity=2))
    spec = page.build_spec()
    spec = dataclasses.replace(spec, evaluation=dataclasses.replace(spec.evaluation, folds=2, bootstrap_samples=50))
    result = run_experiment(ExperimentSpec.from_toml(spec.to_toml()), lambda event: None,
                            table=coded_texts(36, seed=1), n_jobs=1, artefacts_dir=tmp_path / "models")
    model = next(m for m in result.models if m.representation == "codebook_llm")
    assert model.ok, model.message
    assert model.chosen_params in ({"k": 0, "instruction": 0}, {"k": 1, "instruction": 0})
    assert model.spec["representation_options"]["descriptions"] == {"health": "hospitals, doctors and patients"}
    assert len(model.spec["sensitivity"]["prompts"]) == 2


def test_with_several_categories_per_text_the_preview_asks_about_each_category(qtbot):
    session = StudySession()
    session.set_codebook(CODEBOOK)
    page = ModelsPage(session=session)
    qtbot.addWidget(page)
    mapping = ColumnMapping(["Text"], None, multi_label=True, category_columns=["Economy", "Health", "Defense"])
    page.set_data(DataSpec("/data/bills.csv", None, "", mapping),
                  ready_report(n_rows=240, n_coded=240, categories=categories(TOPICS)))
    page.codebook.box.click()
    preview = page.codebook.open_preview()
    assert "several categories" in preview.findChild(QLabel, "promptPreviewIntro").text()
    assert "(The same is asked for each of the 3 categories" in preview.prompt()
    assert "answer yes if the text belongs to it" in preview.prompt()
    preview.reject()
