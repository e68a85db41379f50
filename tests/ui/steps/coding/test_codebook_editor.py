"""The codebook editor and the card beside the text: edits come back as a codebook that survives the
project file, a name used twice or left empty is refused in words, and the card shows what the codebook
says about a category."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QListWidget, QPushButton

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.ui.steps.coding.codebook_card import NO_DEFINITION, NOTHING_CHOSEN, CodebookCard
from guiapp.ui.steps.coding.codebook_editor import CodebookEditor
from tests.ui.helpers import save_screenshot

HEALTH = ("Bills about health care, insurance, public health and medical research. Not: veterans' health care "
          "(Defense).")


def sample() -> Codebook:
    return Codebook([
        CodebookCategory("Health", HEALTH, ["A bill to expand coverage of preventive screenings under Medicare.",
                                            "A bill to fund research on childhood cancers."]),
        CodebookCategory("Education", "Schools, universities, student loans.", []),
    ])


@pytest.fixture
def editor(qtbot):
    widget = CodebookEditor()
    qtbot.addWidget(widget)
    widget.resize(900, 520)
    widget.set_codebook(sample().with_categories(["Health", "Energy"]))  # the column's categories join
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def names_in_list(editor) -> list[str]:
    categories = editor.findChild(QListWidget, "codebookCategories")
    return [categories.item(row).text() for row in range(categories.count())]


def test_setting_a_codebook_shows_it_and_emits_nothing(qtbot, editor):
    with qtbot.assertNotEmitted(editor.changed):
        editor.set_codebook(sample().with_categories(["Health", "Energy"]))
    assert editor.codebook().to_dict() == sample().with_categories(["Energy"]).to_dict()
    assert names_in_list(editor) == ["1   Health", "2   Education", "3   Energy"]
    assert editor.chosen_name() == "Health"
    assert editor.definition.toPlainText() == HEALTH
    assert editor.examples() == sample().categories[0].examples
    save_screenshot(editor, "widget_codebook_editor")


def test_typing_a_definition_passes_the_codebook_on_once_typing_pauses(qtbot, editor):
    editor.choose("Energy")
    heard: list[Codebook] = []
    editor.changed.connect(heard.append)
    editor.definition.setFocus()
    qtbot.keyClicks(editor.definition, "Oil, gas, nuclear power")
    assert editor.codebook().category("Energy").definition == "Oil, gas, nuclear power"  # read at once
    qtbot.waitUntil(lambda: len(heard) == 1)
    assert heard[0].category("Energy").definition == "Oil, gas, nuclear power"
    assert Codebook.from_dict(heard[0].to_dict()).to_dict() == heard[0].to_dict()  # survives the project file


def test_choosing_another_category_passes_on_the_definition_typed_just_before(qtbot, editor):
    editor.choose("Energy")
    qtbot.keyClicks(editor.definition, "Oil and gas")
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        editor.choose("Health")  # no wait: what was typed is not lost or delayed
    assert signal.args[0].category("Energy").definition == "Oil and gas"
    assert editor.definition.toPlainText() == HEALTH


def test_adding_a_category_and_its_examples(qtbot, editor):
    qtbot.keyClicks(editor.name_field, "  Foreign   trade ")
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        qtbot.keyClick(editor.name_field, Qt.Key.Key_Return)
    assert signal.args[0].names() == ["Health", "Education", "Energy", "Foreign trade"]
    assert editor.chosen_name() == "Foreign trade" and editor.name_field.text() == ""

    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        editor.example_field.setText("A bill to extend normal trade relations to Vietnam.")
        editor.add_example()
    assert signal.args[0].category("Foreign trade").examples == ["A bill to extend normal trade relations to Vietnam."]
    editor.example_field.setText("A bill on tariffs for imported steel.")
    qtbot.keyClick(editor.example_field, Qt.Key.Key_Return)
    assert editor.examples() == ["A bill to extend normal trade relations to Vietnam.",
                                 "A bill on tariffs for imported steel."]

    examples = editor.findChild(QListWidget, "codebookExamples")
    examples.setCurrentRow(0)
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        editor.findChild(QPushButton, "removeExample").click()
    assert signal.args[0].category("Foreign trade").examples == ["A bill on tariffs for imported steel."]
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        examples.item(0).setText("A bill on tariffs for imported steel and aluminium.")  # edited in place
    assert signal.args[0].category("Foreign trade").examples == ["A bill on tariffs for imported steel and aluminium."]


@pytest.mark.parametrize(("typed", "problem"), [
    ("Health", "“Health” is already a category"),
    ("  health ", "“Health” is already a category; a second one spelled “health”"),
    ("   ", "Type a name for the new category first."),
])
def test_a_name_used_twice_or_empty_is_refused_in_words(qtbot, editor, typed, problem):
    before = editor.codebook().to_dict()
    editor.name_field.setText(typed)
    with qtbot.assertNotEmitted(editor.changed):
        editor.findChild(QPushButton, "addCategory").click()
    assert problem in editor.name_problem()
    assert editor.codebook().to_dict() == before
    editor.name_field.clear()
    qtbot.keyClicks(editor.name_field, "Housing")  # a name that is free clears the message as it is typed
    assert editor.name_problem() == ""


def test_reordering_and_removing_categories(qtbot, editor):
    editor.choose("Energy")
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        editor.findChild(QPushButton, "categoryUp").click()
    assert signal.args[0].names() == ["Health", "Energy", "Education"]
    assert names_in_list(editor)[1] == "2   Energy" and editor.chosen_name() == "Energy"
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:
        editor.findChild(QPushButton, "removeCategory").click()
    assert signal.args[0].names() == ["Health", "Education"]
    assert signal.args[0].category("Health").definition == HEALTH
    assert editor.chosen_name() == "Education"

    categories = editor.findChild(QListWidget, "codebookCategories")
    with qtbot.waitSignal(editor.changed, timeout=0) as signal:  # dragged to the top, as a drop moves it
        categories.model().moveRows(QModelIndex(), 1, 1, QModelIndex(), 0)
    assert signal.args[0].names() == ["Education", "Health"]
    qtbot.waitUntil(lambda: names_in_list(editor) == ["1   Education", "2   Health"])  # numbered again


def test_the_card_shows_the_definition_and_examples_of_a_category(qtbot):
    card = CodebookCard()
    qtbot.addWidget(card)
    card.resize(300, 380)
    assert card.definition_text() == NOTHING_CHOSEN and card.category_name() is None
    health = sample().categories[0]
    card.show_category(health)
    card.show()
    qtbot.waitExposed(card)
    assert card.category_name() == "Health"
    assert card.definition_text() == HEALTH
    assert card.example_texts() == health.examples
    save_screenshot(card, "widget_codebook_card")

    card.show_category(CodebookCategory("Energy", "  ", ["x" * 500] + [f"example {n}" for n in range(7)]))
    assert card.definition_text() == NO_DEFINITION
    shown = card.example_texts()
    assert len(shown) == 5 and len(shown[0]) == 240 and shown[0].endswith("…")  # long examples are shortened
    card.clear("Code a text to see its category here.")
    assert card.definition_text() == "Code a text to see its category here." and card.example_texts() == []
