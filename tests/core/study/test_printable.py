"""Names shown in messages: control characters and direction overrides escaped, the rest as written."""

from __future__ import annotations

from guiapp.core.study.printable import has_control_characters, printable


def test_control_characters_are_escaped_and_ordinary_text_is_kept() -> None:
    assert printable("tex\x00ts.csv") == "tex\\x00ts.csv"
    assert printable("\x1b[2Jgone") == "\\x1b[2Jgone"
    assert printable("report\u202etxt.exe") == "report\\u202etxt.exe"
    assert printable("Études\u00a0sociales ✓ 政治") == "Études\u00a0sociales ✓ 政治"
    assert printable("two\nlines\x07", keep="\n") == "two\nlines\\x07"
    assert has_control_characters("a\tb") and not has_control_characters("plain name.xlsx")
