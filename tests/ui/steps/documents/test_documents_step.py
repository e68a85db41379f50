"""The Documents step in the window: selecting a test document explains its model's answer in
coloured words with a faithfulness sentence; another category recolours it; "Explain all" lists
the words per category and exports HTML + CSV; a confusion-matrix cell on the Results step opens
the Documents step filtered to it."""

from __future__ import annotations

import pandas as pd
import pytest

from guiapp.ui.main_window import DOCUMENTS_STEP
from tests.core.project.helpers import run_project
from tests.ui.helpers import save_screenshot


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return run_project(tmp_path_factory.mktemp("models"))


@pytest.fixture
def shown(qtbot, window, project):
    window.session.set_result(project.result, project.model_folders)
    window.go_to_step(DOCUMENTS_STEP)
    yield window
    window.documents_page.explanations.cancel_jobs()


def test_selecting_a_document_explains_it_in_coloured_words(qtbot, shown, project):
    window, panel = shown, shown.documents_page.explanations
    assert window.steps.is_step_enabled(DOCUMENTS_STEP)
    best = project.result.best()
    assert panel.model_combo.currentText() == best.name
    assert not panel.steps_spin.isVisible() and not panel.tabs.isTabEnabled(1)  # no attention without a Transformer
    window.documents_page.select_document(0)
    qtbot.waitUntil(lambda: panel.explanation is not None and not panel.is_busy(), timeout=30000)
    found = panel.explanation
    assert found.attribution.method == "linear_exact" and found.attribution.model == best.name
    assert found.attribution.target == best.predictions[0]
    assert found.faithfulness is not None and "Removing these" in found.faithfulness.sentence()
    html = panel.words.html()
    assert "background" in html and project.result.test_texts[0].split()[0] in panel.words.plain_text()
    save_screenshot(window, "documents_step_explained")

    other = next(i for i in range(len(project.result.categories)) if i != found.attribution.target)
    panel.category_combo.setCurrentIndex(other + 1)
    panel.explain_current()
    qtbot.waitUntil(lambda: panel.explanation.attribution.target == other and not panel.is_busy(), timeout=30000)


def test_explain_all_lists_words_per_category_and_exports(qtbot, shown, project, tmp_path):
    panel = shown.documents_page.explanations
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.corpus is not None and not panel.is_busy(), timeout=60000)
    assert len(panel.corpus.documents) == len([t for t in project.result.test_texts if t.strip()])
    assert panel.corpus.words.rows and panel.export_button.isEnabled()
    written = panel.export_to(tmp_path / "why.html")
    assert [p.name for p in written] == ["why.html", "why - top words.csv", "why - faithfulness.csv",
                                         "why - words per category.csv"]
    page = written[0].read_text(encoding="utf-8")
    assert "<script" not in page and project.result.categories[0] in page
    rows = pd.read_csv(written[1], encoding="utf-8-sig")
    assert len(rows) > 0
    # the Results step's Excel export now carries the explanations too
    import openpyxl

    workbook = tmp_path / "results.xlsx"
    worker = shown.results_page.export.export_excel(workbook)
    qtbot.waitUntil(lambda: not worker.is_running() and workbook.exists(), timeout=30000)
    assert "Word attributions" in openpyxl.load_workbook(workbook, read_only=True).sheetnames


def test_a_confusion_cell_opens_the_documents_step_filtered(qtbot, shown, project):
    window = shown
    best = project.result.best()
    window.go_to_step(3)
    window.results_page.confusionCellClicked.emit(best.name, 0, 0)
    assert window.steps.currentRow() == DOCUMENTS_STEP
    expected = project.result.best().test.confusion[0][0]
    assert len(window.documents_page.shown_documents()) == expected
