"""The look of TextLab's workbooks: one set of cell formats per workbook, made once."""

from __future__ import annotations

from typing import Any

from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook

PERCENT = "0.0%"
SCORE = "0.000"  # macro-F1, accuracy, precision, recall, kappa, alpha: three decimals, as papers report them
SIGNED_SCORE = "+0.000;-0.000;0.000"  # differences between scores
P_VALUE = '[<0.001]"< 0.001";0.000'  # p-values: three decimals, "< 0.001" below
INTEGER = "0"  # row numbers, seeds: no thousands separator
WHITE = "#FFFFFF"
GREEN = "#63BE7B"
BLUE = "#5B9BD5"


class Styles:
    """Formats of one workbook (XlsxWriter formats belong to the workbook that made them)."""

    def __init__(self, workbook: Workbook) -> None:
        self.workbook = workbook
        self.header = workbook.add_format(
            {"bold": True, "text_wrap": True, "valign": "top", "bottom": 1, "bg_color": "#F2F2F2"}
        )
        self.bold = workbook.add_format({"bold": True})
        self.title = workbook.add_format({"bold": True, "font_size": 13})
        self.section = workbook.add_format({"bold": True, "font_size": 12, "bg_color": "#F2F2F2"})
        self.label = workbook.add_format({"bold": True, "valign": "top"})
        self.wrap = workbook.add_format({"text_wrap": True, "valign": "top", "align": "left"})
        self.percent = workbook.add_format({"num_format": PERCENT})
        self.seconds = workbook.add_format({"num_format": "#,##0.0"})
        self.count = workbook.add_format({"num_format": "#,##0"})
        self.integer = workbook.add_format({"num_format": INTEGER})
        self.score = workbook.add_format({"num_format": SCORE})
        self.signed_score = workbook.add_format({"num_format": SIGNED_SCORE})
        self.p_value = workbook.add_format({"num_format": P_VALUE})
        self.wrap_number = workbook.add_format({"text_wrap": True, "valign": "top", "align": "left",
                                                "num_format": "0.0###"})
        self.wrap_integer = workbook.add_format({"text_wrap": True, "valign": "top", "align": "left",
                                                 "num_format": INTEGER})
        self.agrees = workbook.add_format({"font_color": "#006100", "bg_color": "#C6EFCE"})  # conditional: ✓
        self.differs = workbook.add_format({"font_color": "#9C0006", "bg_color": "#FFC7CE"})  # conditional: ✗
        self.muted = workbook.add_format({"font_color": "#7F7F7F", "italic": True})
        self.date = workbook.add_format({"num_format": "yyyy-mm-dd"})
        self.datetime = workbook.add_format({"num_format": "yyyy-mm-dd hh:mm:ss"})
        self.time = workbook.add_format({"num_format": "hh:mm:ss"})
        self._blocks: dict[str, Format] = {}

    def block_header(self, fill: str) -> Format:
        """A header format with the fill colour of one model's block."""
        if fill not in self._blocks:
            self._blocks[fill] = self.workbook.add_format(
                {"bold": True, "text_wrap": True, "valign": "top", "bottom": 1, "bg_color": fill}
            )
        return self._blocks[fill]

    @property
    def probability_scale(self) -> dict[str, Any]:
        """White at 0 %, green at 100 %, whatever the range of the values shown."""
        return {
            "type": "2_color_scale",
            "min_type": "num",
            "min_value": 0,
            "min_color": WHITE,
            "max_type": "num",
            "max_value": 1,
            "max_color": GREEN,
        }

    @property
    def count_scale(self) -> dict[str, Any]:
        """White for the smallest count, blue for the largest (confusion matrices)."""
        return {"type": "2_color_scale", "min_color": WHITE, "max_color": BLUE}
