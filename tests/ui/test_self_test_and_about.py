"""Help → Self-test… and Help → About: the action runs the self-test in a worker; About names the licences."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from guiapp.core import self_test
from guiapp.core.self_test import Check, SelfTestReport

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"


def _fake_self_test(quick=False, on_event=None, on_check=None):
    report = SelfTestReport(quick=quick, seconds=0.2)
    for check in (Check("bundled Transformer (all-MiniLM-L6-v2) and tokenizer load", True, 0.1),
                  Check("word vectors (GloVe 6B, 50 dimensions) load", False, 0.0, reason="file missing")):
        report.checks.append(check)
        on_check(check)
    return report


def test_the_help_menu_runs_the_self_test_in_a_worker(qtbot, window, monkeypatch) -> None:
    monkeypatch.setattr(self_test, "run_self_test", _fake_self_test)
    help_menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&Help")
    assert window.self_test_action in help_menu.actions()
    window.self_test_action.trigger()
    dialog = window.self_test_dialog
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=5000)
    qtbot.waitUntil(lambda: "file missing" in dialog.lines.toPlainText(), timeout=2000)
    lines = dialog.lines.toPlainText().splitlines()
    assert lines == ["✓ bundled Transformer (all-MiniLM-L6-v2) and tokenizer load — 0.1 s",
                     "✗ word vectors (GloVe 6B, 50 dimensions) load: file missing"]
    assert "1 of 2 checks failed: word vectors" in dialog.status.text()
    dialog.worker.wait(2000)
    dialog.reject()


def test_about_names_the_version_and_the_bundled_licences(qtbot) -> None:
    from guiapp import __version__
    from guiapp.ui.window.about_dialog import about_box, app_icon

    assert not app_icon().isNull() and len(app_icon().availableSizes()) == 7
    box = about_box()
    qtbot.addWidget(box)
    text = box.text()
    assert f"TextLab {__version__}" in text
    for fact in ("all-MiniLM-L6-v2", "Apache License 2.0", "GloVe 6B", "PDDL 1.0", "Congressional Bills Project",
                 "GNU GPL v3"):
        assert fact in text
    assert not box.iconPixmap().isNull()
    box.show()
    QApplication.processEvents()
    SCREENSHOTS.mkdir(exist_ok=True)
    assert box.grab().save(str(SCREENSHOTS / "about.png"))
