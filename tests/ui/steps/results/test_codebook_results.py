"""The Results step shows a language model with your codebook like every model, with its prompt
sensitivity under the chart of all models, its chosen prompt in words, its record and its exact prompt,
and says plainly when the texts left this computer."""

from __future__ import annotations


import pytest

from guiapp.ui.steps.results.codebook_details import PromptDialog, prompt_text
from guiapp.ui.steps.results.results_page import ResultsPage
from tests.core.export.codebook_result_sample import PROMPT_SHA, codebook_model, with_codebook_model
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import sample_result
from tests.ui.helpers import SCREENSHOTS

SHOTS = SCREENSHOTS  # gitignored
NAME = "Codebook language model (Qwen2.5-0.5B-Instruct)"


@pytest.fixture(scope="module")
def result():
    shown = with_codebook_model(sample_result())
    server = codebook_model(shown, server=True, leaves=True, outside=4, with_sensitivity=False, seed=9)
    server.name = "Codebook language model (llama3.2 on a server)"
    shown.models.append(server)
    return shown


def _page(qtbot, result) -> ResultsPage:
    page = ResultsPage()
    qtbot.addWidget(page)
    page.resize(1200, 900)
    page.show()
    page.show_result(result)
    return page


def _shot(widget, name: str) -> None:
    save_screenshot(widget, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


def test_the_codebook_model_is_compared_with_its_prompt_sensitivity_in_view(qtbot, result):
    page = _page(qtbot, result)
    assert NAME in page.model_names() and len(page.model_names()) == 6  # 4 finished + 2 language models
    overview = page.sensitivity_label.plain_text()
    assert page.sensitivity_label.isVisible()
    assert f"Prompt sensitivity of {NAME}: The three wordings of the instruction gave the same answer" in overview
    assert "(Krippendorff's α = 0.74); macro-F1 ranged from 0.55 to 0.61" in overview
    assert "depend somewhat on how the instruction is worded" in overview
    assert "The texts left this computer: Codebook language model (llama3.2 on a server) sent them" in overview
    assert "prompt sensitivity" in page.sensitivity_label.explained_terms()
    page.choose_model(NAME)
    assert "a language model inside TextLab, prompt sensitivity α 0.74" in page.summary_label.text()
    details = page.codebook_label.plain_text()
    assert page.codebook_box.isVisible() and "weights SHA-256 97aa9bcdd12f…" in details
    assert "Prompt: 2 examples per category, TextLab's instruction (SHA-256 e3fe78bb0f95…)" in details
    assert "only from the training texts of the fold scored, seed 5" in details
    assert "never used as the true categories" in page.codebook_label.toolTip()
    assert "left this computer" not in details
    page.show_tab("Tuning")
    assert page.chosen_label.plain_text() == "Chosen setting: 2 examples per category, TextLab's instruction"
    texts = [page.grid_table.item(row, 0).text() for row in range(page.grid_table.rowCount())]
    assert "✔ 2 examples per category, TextLab's instruction  (chosen)" in texts
    assert "no examples (zero-shot), TextLab's instruction" in texts
    page.show_tab("Per category")
    qtbot.wait(100)  # the chart lays out its names
    _shot(page, "results_codebook_llm")
    page.show_tab("Real difference?")
    qtbot.waitUntil(lambda: page.comparison.comparisons is not None, timeout=30000)
    assert page.comparison.pairs_table.rowCount() == 15  # 6 models: every pair, the language models among them


def test_a_server_elsewhere_says_so_and_counts_the_answers_outside(qtbot, result):
    page = _page(qtbot, result)
    page.choose_model("Codebook language model (llama3.2 on a server)")
    details = page.codebook_label.plain_text()
    assert "a language model on a language-model server" in page.summary_label.text()
    assert "The texts left this computer" in details and "http://192.168.1.20:11434" in details
    assert "4 of 120 answers named none of the categories" in details and "Temperature 0." in details
    assert "sensitivity" not in page.summary_label.text()  # none was asked for
    page.choose_model(result.models[0].name)  # another model: no language-model panel
    assert not page.codebook_box.isVisible()


def test_the_exact_prompt_can_be_read_and_copied(qtbot, result):
    page = _page(qtbot, result)
    page.choose_model(NAME)
    assert page.prompt_button.isEnabled()
    page.prompt_button.click()
    dialog = page.findChild(PromptDialog)
    assert dialog is not None and dialog.isVisible()
    assert "{text}" in dialog.text.toPlainText() and "Categories:" in dialog.text.toPlainText()
    assert PROMPT_SHA in dialog.findChild(type(page.study_label), "promptIntro").text()
    _shot(dialog, "results_codebook_prompt")
    dialog.findChild(type(page.prompt_button), "copyPrompt").click()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == prompt_text(result.models[-2])
    dialog.reject()


def test_results_without_a_record_still_show_the_model(qtbot, result):
    import copy

    bare = copy.deepcopy(result)
    for model in bare.models:
        if model.representation == "codebook_llm":
            model.spec = {"name": model.name}  # an older or hand-made results file
    page = _page(qtbot, bare)
    assert not page.sensitivity_label.isVisible()
    page.choose_model(NAME)
    assert page.codebook_label.plain_text() == ("Language model: not recorded in these results. "
                                                "Prompt: 2 examples per category, TextLab's instruction.")
    assert not page.prompt_button.isEnabled()
    page.show_tab("Tuning")
    assert page.chosen_label.plain_text().endswith("2 examples per category, TextLab's instruction")


def test_a_real_study_run_reads_the_same_way(qtbot, tmp_path):
    """A study run on a tiny random causal language model built here: the Results step, the appendix and
    the workbook read the runner's record and sensitivity report (its answers mean nothing)."""
    import openpyxl

    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.export.appendix_data import build_appendix
    from guiapp.core.export.appendix_text import appendix_paragraph
    from guiapp.core.export.excel import write_excel
    from guiapp.core.study.sections import ModelSpec
    from tests.core.experiment.families.test_codebook_runner import codebook, study
    from tests.core.models.llm.test_codebook_model import tiny_lm
    from tests.core.synthetic_texts import coded_texts

    lm = str(tiny_lm(tmp_path / "tiny-lm"))
    spec = study([ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), codebook(lm)], combine=False)
    result = run_experiment(spec, table=coded_texts(36, seed=1), n_jobs=1, artefacts_dir=tmp_path / "models")
    model = result.models[1]
    assert model.ok, model.message
    record = model.spec["record"]
    page = _page(qtbot, result)
    page.choose_model(model.name)
    assert f"Prompt sensitivity of {model.name}: The three wordings" in page.sensitivity_label.plain_text()
    said = model.spec["sensitivity"]["sentence"]
    assert said not in page.model_notes_label.plain_text()  # said once, under the chart
    assert f"weights SHA-256 {record['weights_sha256'][:12]}…" in page.codebook_label.plain_text()
    assert page.prompt_button.isEnabled() and page.saved_box.isVisible()
    prose = appendix_paragraph(build_appendix(result))
    assert record["weights_sha256"] in prose and record["prompt_sha256"] in prose
    assert "where it had one" in prose  # "energy" had no description
    book = openpyxl.load_workbook(write_excel(tmp_path / "out.xlsx", result=result))
    values = [value for row in book["Settings"].iter_rows(values_only=True) for value in row]
    assert record["prompt_template"]["prompts"][0] in values and record["prompt_sha256"] in values
