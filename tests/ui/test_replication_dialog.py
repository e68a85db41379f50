"""File → Replication package…: the dialog writes a package of a real study to a folder or a zip in
the background, honours "the texts may not be shared", says where it went and the reviewer's two
commands, and says what went wrong in words; the Results step's "Report card…" writes the card."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from guiapp.core.replication.manifest import MANIFEST
from guiapp.ui.steps.results.results_export import ResultsExport, print_pdf
from guiapp.ui.window.replication_package_dialog import NO_TEXTS, ReplicationPackageDialog
from tests.core.replication.test_report_card import small_study
from tests.ui.helpers import save_screenshot


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return small_study(tmp_path_factory.mktemp("study"))


def dialog_for(qtbot, project, target: Path) -> ReplicationPackageDialog:
    dialog = ReplicationPackageDialog(project, pdf_printer=print_pdf)
    qtbot.addWidget(dialog)
    dialog.path.setText(str(target))
    dialog.show()
    return dialog


def write(qtbot, dialog: ReplicationPackageDialog) -> None:
    worker = dialog.write()
    assert worker is not None
    qtbot.waitUntil(lambda: not worker.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: dialog.write_button.isEnabled() or dialog.written is not None, timeout=5_000)


def test_the_package_without_texts_holds_only_their_fingerprint(qtbot, project, tmp_path) -> None:
    target = tmp_path / "package"
    dialog = dialog_for(qtbot, project, target)
    assert dialog.no_texts.text() == NO_TEXTS
    assert "The data: 160 rows" in dialog.contents.text() and "4 trained models" in dialog.contents.text()  # two combinations too
    dialog.no_texts.setChecked(True)
    assert "No texts: only the data's fingerprint" in dialog.contents.text()
    save_screenshot(dialog, "replication_package_dialog")
    write(qtbot, dialog)
    assert dialog.written == target, dialog.status.text()
    manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["data"]["included"] is False
    assert not (target / "data" / "table.parquet").exists()
    texts = [text.encode() for text in project.table["text"]]
    for path in target.rglob("*"):  # no text anywhere: not in the results, nor among the card's mistakes
        if path.is_file() and path.suffix != ".pdf":
            data = path.read_bytes()
            assert not any(text in data for text in texts), path
    card = target / "report-card" / "report-card.html"
    assert card.is_file() and (target / "report-card" / "report-card.pdf").is_file()
    status = dialog.status.text()
    assert str(target) in status and "textlab verify ." in status and "textlab replicate . --out rerun" in status
    save_screenshot(dialog, "replication_package_written")
    assert [button.text() for button in dialog.buttons.buttons()] == ["Close"]


def test_a_zip_holds_the_texts_when_they_may_be_shared(qtbot, project, tmp_path) -> None:
    dialog = dialog_for(qtbot, project, tmp_path / "bills")
    dialog.as_zip.setChecked(True)
    write(qtbot, dialog)
    assert dialog.written == tmp_path / "bills.zip", dialog.status.text()
    with zipfile.ZipFile(dialog.written) as archive:
        names = archive.namelist()
    assert any(name.endswith("data/table.parquet") for name in names)
    assert any(name.endswith("report-card/report-card.html") for name in names)


def test_a_problem_is_said_in_words_and_the_dialog_can_try_again(qtbot, project, tmp_path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine", encoding="utf-8")
    dialog = dialog_for(qtbot, project, taken)
    write(qtbot, dialog)
    assert dialog.written is None
    text = dialog.status.text()
    assert "already holds files" in text and "Traceback" not in text
    assert dialog.write_button.isEnabled() and dialog.path.isEnabled()
    assert (taken / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_without_a_finished_study_write_is_not_offered(qtbot, project) -> None:
    dialog = ReplicationPackageDialog(None)
    qtbot.addWidget(dialog)
    assert not dialog.write_button.isEnabled()
    assert "run the study on the Run step first" in dialog.status.text()
    assert dialog.write() is None


def test_the_results_step_writes_the_report_card_alone(qtbot, project, tmp_path) -> None:
    export = ResultsExport()
    qtbot.addWidget(export)
    export.set_result(project.result)
    export.project = lambda: project
    assert export.card_button.isEnabled() and export.card_button.text() == "Report card…"
    written = []
    export.written.connect(written.append)
    worker = export.write_report_card(tmp_path)
    qtbot.waitUntil(lambda: bool(written), timeout=30_000)
    assert not worker.is_running()
    assert (tmp_path / "report-card.html").is_file() and (tmp_path / "report-card.pdf").stat().st_size > 1000
    assert "report-card.html" in written[0]


def test_the_file_menu_offers_the_package_once_a_table_is_open(window) -> None:
    action = window.replication_package_action
    assert action.text() == "&Replication package…" and not action.isEnabled()
    assert "run the study first" in action.toolTip()
    file_menu = window.menuBar().actions()[0].menu()
    assert action in file_menu.actions()
    window.write_replication_package()  # before a table: the dialog says what to do first
    dialog = window.replication_dialog
    assert not dialog.write_button.isEnabled() and "Run step first" in dialog.status.text()
    dialog.reject()


def test_cancel_stops_the_package_and_leaves_nothing_behind(qtbot, project, tmp_path) -> None:
    target = tmp_path / "stopped"
    dialog = dialog_for(qtbot, project, target)
    worker = dialog.write()
    dialog.reject()  # Cancel while writing: stops the job, the dialog stays open
    qtbot.waitUntil(lambda: not worker.is_running(), timeout=30_000)
    qtbot.waitUntil(lambda: dialog.write_button.isEnabled(), timeout=5_000)
    assert dialog.isVisible() and dialog.written is None
    assert dialog.status.text() == "Stopped: no package was written."
    assert not target.exists() and list(tmp_path.iterdir()) == []
