"""The app asks before it starts a study with thousands of fits (a grid of thousands of values)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec


def spec_with(models: list[ModelSpec]) -> ExperimentSpec:
    return ExperimentSpec(data=DataSpec("texts.csv", mapping=ColumnMapping(["text"], "label")), models=models)


def test_a_large_study_asks_first_and_no_keeps_it_from_starting(window, monkeypatch) -> None:
    asked: list[str] = []

    def answer(parent, title, text, *args):
        asked.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", answer)
    window.run_page.ask_before_large_runs = True
    large = spec_with([ModelSpec("bow", "svm", grid={"kernel": ["linear"], "C": [0.001 * i for i in range(1, 1001)]})])
    window.start_run(large)
    assert asked == ["This study will fit 5,001 models.\n\nStart anyway?"]
    assert not window.run_page.is_busy() and window.run_page.state() == "idle"


def test_a_usual_study_starts_without_a_question(window, monkeypatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *args: (_ for _ in ()).throw(AssertionError("asked")))
    window.run_page.ask_before_large_runs = True
    assert window.run_page._confirm_large_run(spec_with([ModelSpec("bow", "svm"), ModelSpec("bow", "naive_bayes")]))
