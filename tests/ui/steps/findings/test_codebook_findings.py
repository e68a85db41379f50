"""When the model whose answers are counted is a language model with your codebook, the Findings step,
the findings' workbook, the methods appendix and a reopened project say in one sentence that its labels
enter the shares only as a model's predictions, corrected by the coded texts, never as the truth."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from guiapp.core.findings.from_study import model_note
from guiapp.core.findings.kept_findings import KeptFindings
from guiapp.core.findings.records import LANGUAGE_MODEL_NOTE
from guiapp.core.predict.new_texts import open_models, predict_new_texts
from guiapp.ui.steps.findings.findings_page import FindingsPage
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table
from tests.ui.helpers import SCREENSHOTS

SHOTS = SCREENSHOTS  # gitignored


def as_language_model(result, name: str):
    """A copy of ``result`` in which the model ``name`` is a language model with your codebook (its answers
    are those of the model saved in its folder)."""
    shown = copy.deepcopy(result)
    model = next(m for m in shown.models if m.name == name)
    model.representation, model.classifier = "codebook_llm", "in_textlab"
    return shown


@pytest.fixture
def page(qtbot, project):
    session = session_with_table(project.table, project.spec.data.mapping)
    widget = FindingsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    yield widget, session
    widget.cancel_jobs()


def _measure(qtbot, widget, session, project, result, name: str) -> None:
    corpus = coded_texts(240, seed=21).assign(year=np.arange(240) % 5 + 2000).drop(columns="label")
    session.set_result(result, project.model_folders)
    session.set_predictions(predict_new_texts(open_models([(name, project.model_folder(name))]),
                                              corpus["text"].tolist()), corpus)
    qtbot.waitUntil(lambda: widget.findings is not None and not widget.is_busy(), timeout=30_000)


def test_the_step_says_a_language_models_labels_are_never_the_truth(qtbot, page, project, tmp_path):
    from guiapp.core.export.appendix import write_appendix
    from guiapp.core.export.findings_export import write_findings

    widget, session = page
    name = project.result.best().name
    _measure(qtbot, widget, session, project, as_language_model(project.result, name), name)
    findings = widget.findings
    assert findings.model_note == LANGUAGE_MODEL_NOTE
    assert LANGUAGE_MODEL_NOTE in widget.assumption.text() and widget.assumption.isVisible()
    assert LANGUAGE_MODEL_NOTE in findings.methods_paragraph()
    save_screenshot(widget, "findings_codebook_llm")
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / "findings_codebook_llm.png"))

    out = write_findings(tmp_path / "findings.xlsx", findings)
    lines = pd.read_excel(out, sheet_name="How estimated", engine="calamine", header=None)[0].dropna().tolist()
    assert LANGUAGE_MODEL_NOTE in lines  # its own line, and again in the methods paragraph
    html, _ = write_appendix(project.result, tmp_path / "methods.html",
                             extra={"findings": {"paragraph": findings.methods_paragraph()}})
    assert "never used as the true categories" in html.read_text(encoding="utf-8")

    kept = KeptFindings.from_dict(KeptFindings(findings, {"source": "predicted", "model": name}).to_dict())
    assert kept.findings.model_note == LANGUAGE_MODEL_NOTE  # a reopened project says it too
    old = KeptFindings(findings).to_dict()
    del old["findings"]["model_note"]  # a project saved before: no sentence, still readable
    assert KeptFindings.from_dict(old).findings.model_note == ""


def test_other_models_say_nothing_of_it_and_a_combination_with_one_does(qtbot, page, project):
    widget, session = page
    name = project.result.best().name
    _measure(qtbot, widget, session, project, project.result, name)
    assert widget.findings.model_note == "" and "language model" not in widget.assumption.text()
    combined = copy.deepcopy(project.result.models[0])
    combined.representation, combined.name = "combined", "Combined: weighted vote"
    combined.spec = {"parts": [m.name for m in project.result.models]}
    by_name = {m.name: m for m in as_language_model(project.result, name).models}
    assert "combines a language model given the codebook" in model_note(combined, by_name)
    assert model_note(combined, {m.name: m for m in project.result.models}) == ""
