"""One theme: the screens take every colour from ``guiapp/ui/theme.py``."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import guiapp.ui
from guiapp.ui import theme

UI = Path(guiapp.ui.__file__).parent
STRING_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def _written_colours(path: Path) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [f"{path.relative_to(UI)}:{token.start[0]}: {token.string.strip()[:60]}" for token in tokens
            if token.type in STRING_TOKENS and re.search(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b", token.string)]


def test_no_module_of_the_interface_writes_a_colour_of_its_own():
    found = [line for path in sorted(UI.rglob("*.py")) if path.name != "theme.py" for line in _written_colours(path)]
    assert found == [], "colours belong in guiapp/ui/theme.py:\n" + "\n".join(found)


def test_the_theme_names_colours_qt_can_read():
    from PySide6.QtGui import QColor

    names = {name: value for name, value in vars(theme).items()
             if name.isupper() and isinstance(value, str) and value.startswith("#")}
    assert len(names) > 60
    assert all(QColor(value).isValid() and len(value) == 7 for value in names.values()), names


def test_notice_cards_and_rules_are_written_as_qt_style_sheets():
    assert theme.notice_style("caution") == (
        "background: #fff8e1; border: 1px solid #ffe082; padding: 4px 8px; border-radius: 4px;")
    assert theme.notice_style("done", "", 6) == "background: #e8f5e9; border: 1px solid #a5d6a7; border-radius: 6px;"
    assert theme.tickable_card_style("modelCell").startswith("QFrame#modelCell { background: #ffffff;")
    assert 'QFrame#modelCell[ticked="true"]' in theme.tickable_card_style("modelCell")
    assert theme.top_rule_style("bar") == "QFrame#bar { border-top: 1px solid #dde1e6; }"
    assert theme.ERROR_STYLE == "color: #c62828;"
