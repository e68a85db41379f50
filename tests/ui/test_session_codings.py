"""The codings made in TextLab live in the study session: a project keeps them, opening it brings them
back, and a table from another file starts without them."""

from __future__ import annotations

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from tests.ui.helpers import wait_for_report


def test_codings_and_codebook_go_into_the_project_and_come_back(qtbot, window, tmp_path):
    window.open_example()
    wait_for_report(qtbot, window)
    session = window.session
    row = session.frame.index[0]
    session.set_codebook(Codebook([CodebookCategory("Health", "Bills about health care.", ["A bill on hospitals"])]))
    session.codings.record(row, "Health", coder="Ana", chosen_by="random", probability=0.001)
    session.codings_changed()
    path = tmp_path / "coded.textlab"
    assert window.project.save_and_wait(path)

    window.project.open(path)
    qtbot.waitUntil(lambda: not window.project.is_busy(), timeout=60_000)
    qtbot.waitUntil(lambda: len(session.codings) == 1, timeout=10_000)
    coding = session.codings.latest()[row]
    assert (coding.category, coding.coder, coding.chosen_by, coding.probability) == ("Health", "Ana", "random", 0.001)
    assert session.codebook.names() == ["Health"]



def test_a_table_from_another_file_starts_without_codings(qtbot, window, tmp_path):
    window.open_example()
    wait_for_report(qtbot, window)
    session = window.session
    session.set_codebook(Codebook([CodebookCategory("Health")]))
    session.codings.record(session.frame.index[0], "Health", coder="Ana", chosen_by="random", probability=0.001)
    session.codings_changed()
    other = tmp_path / "other.csv"
    other.write_text("text,label\n" + "\n".join(f"text number {i},{'a' if i % 2 else 'b'}" for i in range(30)),
                     encoding="utf-8")
    window.open_path(other)
    qtbot.waitUntil(lambda: session.table is not None and session.table.path.name == "other.csv"
                    and not window.data_page.is_busy(), timeout=60_000)
    assert len(session.codings) == 0 and session.codebook.names() == []  # codings belong to their table
