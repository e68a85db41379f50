"""The text being coded: keys 1–9, S, Z / Ctrl+Z and F say what the researcher asked for, a long list of
categories is found by typing, and a text's coding now (and before a change) is shown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QTextBrowser

from guiapp.ui.steps.coding.coding_text_view import CodingTextView
from tests.ui.helpers import save_screenshot

TEXT = ("A bill to amend title XVIII of the Social Security Act to provide for coverage of school-based health "
        "programs under the Medicare program, and to direct the Secretary of Education to report on the number "
        "of school nurses in public elementary and secondary schools.")
FIVE = ["Health", "Education", "Energy", "Defense", "Macroeconomics"]
TWENTY = ["Macroeconomics", "Civil rights", "Health", "Agriculture", "Labor", "Education", "Environment", "Energy",
          "Immigration", "Transportation", "Law and crime", "Social welfare", "Housing", "Domestic commerce",
          "Defense", "Technology", "Foreign trade", "International affairs", "Government operations",
          "Public lands"]


@pytest.fixture
def view(qtbot):
    widget = CodingTextView()
    qtbot.addWidget(widget)
    widget.resize(900, 560)
    widget.show_text(TEXT, {"Bill ID": "HR1043", "Year": 2003}, FIVE)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)
    return widget


def answers(view) -> list:
    heard: list = []
    view.coded.connect(lambda category: heard.append(("coded", category)))
    view.skipped.connect(lambda: heard.append("skipped"))
    view.undoRequested.connect(lambda: heard.append("undo"))
    view.flagged.connect(lambda flag, comment: heard.append(("flagged", flag, comment)))
    return heard


def test_keys_one_to_nine_code_the_text_as_the_numbered_category(qtbot, view):
    heard = answers(view)
    nine = TWENTY[:9]
    for number, category in enumerate(nine, start=1):
        view.show_text(TEXT, {}, nine)
        qtbot.keyClick(view, Qt.Key(Qt.Key.Key_0.value + number))
        assert heard[-1] == ("coded", category)
    assert len(heard) == 9
    assert [button.text() for button in view.category_buttons()][:2] == ["1 Macroeconomics", "2 Civil rights"]

    view.show_text(TEXT, {}, FIVE)
    qtbot.keyClick(view, Qt.Key.Key_7)  # only five categories: key 7 codes nothing
    qtbot.keyClick(view, Qt.Key.Key_2, Qt.KeyboardModifier.KeypadModifier)  # the number pad codes too
    assert heard[9:] == [("coded", "Education")]


def test_one_answer_per_text_until_the_next_is_shown(qtbot, view):
    heard = answers(view)
    qtbot.keyClick(view, Qt.Key.Key_1)
    qtbot.keyClick(view, Qt.Key.Key_2)  # a second press before the next text arrives is not a second coding
    qtbot.keyClick(view, Qt.Key.Key_S)
    view.category_buttons()[2].click()
    assert heard == [("coded", "Health")]
    view.show_text("The next text.", {}, FIVE)
    qtbot.mouseClick(view.category_buttons()[2], Qt.MouseButton.LeftButton)  # the button takes the focus
    assert heard[-1] == ("coded", "Energy")
    view.show_text("The text after.", {}, FIVE)  # that button is gone; the keys still work
    qtbot.keyClick(view.focusWidget() or view, Qt.Key.Key_4)
    assert heard[-1] == ("coded", "Defense") and view.hasFocus()


def test_s_skips_and_z_or_ctrl_z_ask_to_undo(qtbot, view):
    heard = answers(view)
    qtbot.keyClick(view, Qt.Key.Key_S)
    qtbot.keyClick(view, Qt.Key.Key_Z)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert heard == ["skipped", "undo", "undo"]

    view.set_can_undo(False)  # nothing to take back: Undo and its keys rest
    qtbot.keyClick(view, Qt.Key.Key_Z)
    assert heard == ["skipped", "undo", "undo"]
    assert not view.findChild(QPushButton, "undoButton").isEnabled()
    assert view.hasFocus()


def test_keys_work_while_the_reader_selects_in_the_text(qtbot, view):
    heard = answers(view)
    browser = view.findChild(QTextBrowser, "codingText")
    browser.setFocus()
    qtbot.waitUntil(browser.hasFocus)
    qtbot.keyClick(browser, Qt.Key.Key_3)
    assert heard == [("coded", "Energy")]


def test_f_opens_the_flag_dialog_and_flag_sends_flag_and_comment(qtbot, view):
    heard = answers(view)
    qtbot.keyClick(view, Qt.Key.Key_F)
    dialog = view.flag_dialog()
    assert dialog is not None and dialog.flag() == "unsure"
    dialog.choose("ask colleague")
    qtbot.keyClicks(dialog.comment, "is this  Health or Education?")
    qtbot.keyClick(dialog.comment, Qt.Key.Key_Return)  # Return in the comment flags
    assert heard == [("flagged", "ask colleague", "is this Health or Education?")]
    assert view.flag_dialog() is None
    assert view.flag_text() == "Flagged: ask colleague — is this Health or Education?"

    qtbot.keyClick(view, Qt.Key.Key_F)
    view.flag_dialog().reject()  # Cancel: nothing flagged
    qtbot.keyClick(view, Qt.Key.Key_F)
    dialog = view.flag_dialog()
    dialog.choose("")  # "Other" with no words: the Flag button waits for them
    assert dialog.flag() == "" and not dialog.findChild(QPushButton, "flagConfirm").isEnabled()
    dialog.choose("coded before the codebook changed")
    dialog.accept()
    assert heard[1:] == [("flagged", "coded before the codebook changed", "")]


def test_more_than_nine_categories_are_found_in_the_list_by_typing(qtbot, view):
    heard = answers(view)
    assert not view.uses_category_list()
    view.show_text(TEXT, {}, TWENTY)
    assert view.uses_category_list() and len(view.category_buttons()) == 9
    finder = view.category_finder()
    assert [finder.itemText(row) for row in range(finder.count())] == TWENTY

    line = finder.lineEdit()
    line.setFocus()
    qtbot.waitUntil(line.hasFocus)
    qtbot.keyClicks(line, "so")  # typing letters in the list codes nothing and skips nothing
    qtbot.keyClick(line, Qt.Key.Key_Return)  # "so" is in one name only: Social welfare
    assert heard == [("coded", "Social welfare")]

    view.show_text(TEXT, {}, TWENTY)
    line.setText("government operations")  # a whole name, in any case
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert heard[-1] == ("coded", "Government operations")

    view.show_text(TEXT, {}, TWENTY)
    line.setText("tion")  # in several names: the list asks to choose one
    qtbot.keyClick(line, Qt.Key.Key_Return)
    line.setText("Sports")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert len(heard) == 2
    assert "No category is called “sports”" in view.findChild(QLabel, "categoryFinderHint").text()

    finder.activated.emit(15)  # chosen in the opened list
    assert heard[-1] == ("coded", "Technology")

    line.setFocus()  # after a coding through the list, the next text's keys code again (not type into it)
    qtbot.waitUntil(line.hasFocus)
    view.show_text(TEXT, {}, TWENTY)
    assert view.hasFocus()
    qtbot.keyClick(view, Qt.Key.Key_3)
    assert heard[-1] == ("coded", "Health") and line.text() == ""


def test_the_coding_now_is_highlighted_and_a_change_says_what_it_was(qtbot, view):
    view.show_text(TEXT, {"Bill ID": "HR1043", "Year": 2003}, FIVE, current="Health", changed_from="Education",
                   reason="Suggested: the model is unsure between Health and Education")
    assert [button.property("current") for button in view.category_buttons()] == [True, False, False, False, False]
    assert view.status_text() == "Coded as Health — changed from Education"
    assert view.reason_text() == "Suggested: the model is unsure between Health and Education"
    assert view.metadata_text() == "Bill ID: HR1043 · Year: 2003"
    assert view.text() == TEXT
    save_screenshot(view, "widget_coding_text_view")

    view.show_text(TEXT, {}, FIVE, current="Energy")
    assert view.status_text() == "Coded as Energy"
    assert [button.property("current") for button in view.category_buttons()] == [False, False, True, False, False]
    view.show_text(TEXT, {}, FIVE)
    assert view.status_text() == "" and view.reason_text() == "" and view.metadata_text() == ""

    with qtbot.waitSignal(view.categoryHovered, timeout=1000) as pointed:  # for the codebook card beside
        view.category_buttons()[3].setFocus()
    assert pointed.args == ["Defense"]


def test_with_nothing_left_to_code_only_undo_still_works(qtbot, view):
    heard = answers(view)
    view.show_empty("Every text has been coded.")
    assert view.empty_message() == "Every text has been coded."
    for key in (Qt.Key.Key_1, Qt.Key.Key_S, Qt.Key.Key_F):
        qtbot.keyClick(view, key)
    assert view.flag_dialog() is None
    qtbot.keyClick(view, Qt.Key.Key_Z)
    assert heard == ["undo"]
    view.show_text(TEXT, {}, FIVE)
    assert view.empty_message() == ""
    qtbot.keyClick(view, Qt.Key.Key_1)
    assert heard == ["undo", ("coded", "Health")]
