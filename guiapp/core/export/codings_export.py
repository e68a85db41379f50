""""Export codings…": the researcher's table with the codings made in TextLab beside it, as an Excel
workbook or a CSV file (by the file's ending). The file the texts came from is never written to.

The exported table is the user's table, its columns untouched (the category column as the file has
it), with a first column naming each text's row in that file (as Excel shows it) and, after the
user's columns, TextLab's: *Coding* (the coding that counts: the latest made in TextLab, else the
file's), *Coder*, *Time (UTC)*, *How chosen* (random, uncertainty, diversity, in order, review,
second coder), *Probability of being chosen* (by the strategy that proposed the text; empty when
none did), *Flag*, *Comment* and *Previous coding* (the category a changed coding replaced, or the
one an earlier coding gave a text coded again). A text coded again keeps its first record: the
time it was first coded, how it was chosen and with what probability. Texts
coded from a second file follow the table's rows, with a column that says where each text comes
from. When a second coder coded texts (a record apart that never counts as the coding), two more
columns follow: *Second coder* and *Second coder's category* (the second coder's latest coding of
the text; empty for the texts the second coder did not code). The workbook adds a *Codebook*
sheet: each category, its definition, examples and how many texts it now holds.

Once the codebook has versions, a *Codebook version* column gives the version each coding was made
under, and a *Codebook versions* sheet lists every version (number, date, note, what changed) and
each version's definitions. With a coding team (two or more coders) the *Coding* is the team's
resolved one, *How the coding was reached* names its rule per text (adjudicated, agreed, one
coder, first coder, majority …), *Each coder's coding* lists every coder's own, and a *Team
agreement* sheet gives Krippendorff's α, Fleiss' κ, the matrix of Cohen's κ of every pair of
coders, each coder against the adjudicated coding and α per codebook version
(``team_report.team_agreement_of_log``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd
import xlsxwriter
from xlsxwriter.workbook import Workbook

from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.codings import (
    SOURCES,
    Coding,
    CodingLog,
    coded_counts,
    file_categories,
)
from guiapp.core.coding.team import latest_by_coder
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.export.excel import (
    CONSTANT_MEMORY_ROWS,
    EXCEL_MAX_COLUMNS,
    EXCEL_MAX_ROWS,
)
from guiapp.core.export.excel_cells import (
    CellFormats,
    column_width,
    text_width,
    write_cells,
    write_frame_rows,
)
from guiapp.core.export.excel_predictions import BLOCK_FILLS
from guiapp.core.export.excel_style import Styles
from guiapp.core.export.excel_team_sheets import team_sheets
from guiapp.core.export.flat_files import write_csv
from guiapp.core.export.prediction_files import check_output_name as check_file_ending
from guiapp.core.export.prediction_files import with_row_numbers
from guiapp.core.export.target import writing_to
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.rows import copy_row_origin

CODING, CODER, TIME, CHOSEN, PROBABILITY = "Coding", "Coder", "Time (UTC)", "How chosen", "Probability of being chosen"
FLAG, COMMENT, PREVIOUS = "Flag", "Comment", "Previous coding"
TEXTLAB_COLUMNS = (CODING, CODER, TIME, CHOSEN, PROBABILITY, FLAG, COMMENT, PREVIOUS)
SECOND_CODER, SECOND_CATEGORY = "Second coder", "Second coder's category"
SECOND_CODER_COLUMNS = (SECOND_CODER, SECOND_CATEGORY)  # only when a second coder coded texts
CODEBOOK_VERSION = "Codebook version"  # only once the codebook has versions
RULE, EACH_CODER = "How the coding was reached", "Each coder's coding"
TEAM_COLUMNS = (RULE, EACH_CODER)  # only with a coding team
FROM = "Text from"
FROM_TABLE, FROM_SECOND_FILE = "your table", "the second file of texts"
ROW_IN_FILE = "Row in its file"
FORMATS = {".xlsx": "Excel workbook", ".csv": "CSV (comma-separated, UTF-8)"}
SHEET, CODEBOOK_SHEET = "Codings", "Codebook"
CHUNK_ROWS = 5_000


def _part(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog, source: str, only_coded: bool,
          names: dict[str, str]) -> pd.DataFrame:
    """``frame`` with a first column of its rows and TextLab's columns (``names``) after its own;
    the second coder's columns when ``names`` has them."""
    coded, last = log.latest(source), {entry.row: entry for entry in log.entries_of() if entry.source == source}
    checks = log.second_coder(source) if SECOND_CODER in names else {}
    if only_coded:
        frame = frame.loc[[row in coded or row in checks or _has_note(last.get(row)) for row in frame.index]]
    numbered = with_row_numbers(frame)
    in_file = file_categories(frame, mapping)
    codings = [coded.get(row) for row in frame.index]
    notes = [last.get(row) for row in frame.index]
    # a text coded again keeps its first record: when it was first coded, how it was chosen, with what chance
    chosen, first_coded = log.first_entries(source), _first_codings(log, source)
    drawn = [chosen.get(row) if c else None for c, row in zip(codings, frame.index, strict=True)]
    since = [first_coded.get(row) if c else None for c, row in zip(codings, frame.index, strict=True)]
    columns = {
        CODING: [c.category if c else in_file.get(row) for c, row in zip(codings, frame.index, strict=True)],
        CODER: [c.coder if c else None for c in codings],
        TIME: pd.to_datetime([c.at if c else None for c in since], utc=True, format="ISO8601").tz_convert(None),
        CHOSEN: [c.chosen_by if c else None for c in drawn],
        PROBABILITY: np.array([c.probability if c and c.probability is not None else np.nan for c in drawn]),
        FLAG: [(n.flag or None) if n else None for n in notes],
        COMMENT: [(n.comment or None) if n else None for n in notes],
        PREVIOUS: [c.previous if c else None for c in codings],
    }
    if CODEBOOK_VERSION in names:
        columns[CODEBOOK_VERSION] = np.array([c.codebook_version if c and c.codebook_version is not None
                                              else np.nan for c in codings])
    if RULE in names:
        rules = {text.row: text.rule for text in log.study_codings(source).texts}
        by_coder = latest_by_coder(log.entries, source)
        columns[RULE] = [rules.get(row) for row in frame.index]
        columns[EACH_CODER] = [_each_coder(by_coder.get(row), log) for row in frame.index]
    if SECOND_CODER in names:
        checked = [checks.get(row) for row in frame.index]
        columns[SECOND_CODER] = [c.coder if c else None for c in checked]
        columns[SECOND_CATEGORY] = [c.category if c else None for c in checked]
    added = pd.DataFrame({names[key]: values for key, values in columns.items()}, index=frame.index)
    return copy_row_origin(frame, pd.concat([numbered, added], axis=1))


def _each_coder(codings: dict | None, log: CodingLog) -> str | None:
    """"Ann: positive; Ben: negative; Cem: skipped" in the team's order of coders."""
    if not codings:
        return None
    order = {coder: place for place, coder in enumerate(log.team.coders if log.team else [])}
    parts = []
    for coder, entry in sorted(codings.items(), key=lambda item: order.get(item[0], len(order))):
        coded = "; ".join(entry.coded_as) if entry.coded_as else "skipped"
        parts.append(f"{coder}: {coded}")
    return " | ".join(parts)


def _first_codings(log: CodingLog, source: str) -> dict:
    """Row → its first coding (skips left out), of the first coder."""
    first: dict = {}
    for entry in log.entries_of():
        if entry.source == source and entry.category is not None and entry.row not in first:
            first[entry.row] = entry
    return first


def _unique(name: str, taken: set[str]) -> str:
    """``name``, with " (TextLab)" added while the user's table has a column of that name."""
    while name in taken:
        name += " (TextLab)"
    taken.add(name)
    return name


def _has_note(entry: Coding | None) -> bool:
    return entry is not None and bool(entry.flag or entry.comment)


def codings_table(table: pd.DataFrame, mapping: ColumnMapping, log: CodingLog, *,
                  coding_texts: pd.DataFrame | None = None, only_coded: bool = False) -> pd.DataFrame:
    """The exported table (see the module's docstring); ``only_coded``: only the texts coded (or
    flagged) in TextLab. Neither ``table`` nor ``coding_texts`` is changed."""
    second = coding_texts is not None and bool(log.latest("second file") or log.flagged("second file"))
    taken = {str(column) for frame in (table, coding_texts if second else None) if frame is not None
             for column in frame.columns}
    names = {name: _unique(name, taken) for name in textlab_columns(log)}
    part = _part(table, mapping, log, "table", only_coded, names)
    if not second:
        return part
    other = _part(coding_texts, mapping, log, "second file", True, names)
    ours = set(names.values())
    row_name, from_name = _unique(ROW_IN_FILE, taken), _unique(FROM, taken)
    both = []
    for frame, where in ((part, FROM_TABLE), (other, FROM_SECOND_FILE)):
        frame = frame.rename(columns={frame.columns[0]: row_name})
        frame.insert(1, from_name, where)
        both.append(frame.reset_index(drop=True))
    joined = pd.concat(both, ignore_index=True)
    last = [column for column in joined.columns if column in ours]  # TextLab's columns stay last
    return joined[[column for column in joined.columns if column not in ours] + last]


def textlab_columns(log: CodingLog) -> tuple[str, ...]:
    """The names of TextLab's columns for ``log``, in their order (before any is renamed)."""
    versions = log.history is not None or any(entry.codebook_version is not None for entry in log.entries)
    checked = any(log.second_coder(source) for source in SOURCES)
    return (*TEXTLAB_COLUMNS, *((CODEBOOK_VERSION,) if versions else ()), *(TEAM_COLUMNS if log.team_mode else ()),
            *(SECOND_CODER_COLUMNS if checked else ()))


def check_output_name(path: str | Path) -> str:
    """The file ending that decides the format; a name without a known ending is explained."""
    return check_file_ending(path, FORMATS, ".xlsx (Excel) or .csv")


def write_codings(
    path: str | Path,
    table: pd.DataFrame,
    mapping: ColumnMapping,
    log: CodingLog,
    *,
    codebook: Codebook | None = None,
    coding_texts: pd.DataFrame | None = None,
    only_coded: bool = False,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    on_event: EventCallback = ignore_events,
) -> Path:
    """Write the codings to ``path`` (.xlsx or .csv) and return it. ``protected`` are files never to
    write over: the file the texts came from, above all."""
    suffix = check_output_name(path)
    on_event(Progress(0.0, "Preparing the codings"))
    frame = codings_table(table, mapping, log, coding_texts=coding_texts, only_coded=only_coded)
    if suffix == ".csv":
        return write_csv(path, frame, overwrite=overwrite, protected=protected, on_event=on_event)
    _check_excel_size(frame)
    counts = coded_counts(table, mapping, log)
    for category, n in log.counts("second file").items():
        counts[category] = counts.get(category, 0) + n
    codebook = codebook or Codebook()
    return _write_workbook(Path(path), frame, codebook, counts, overwrite, protected, on_event,
                           n_textlab=len(textlab_columns(log)), extra=lambda wb, st: team_sheets(wb, st, log, codebook))


def _check_excel_size(frame: pd.DataFrame) -> None:
    if len(frame) + 1 > EXCEL_MAX_ROWS:
        raise UserError(f"Excel cannot hold that many rows: the codings fill {len(frame):,} rows, and a worksheet "
                        f"holds at most {EXCEL_MAX_ROWS - 1:,} below its header row.",
                        "Export the codings as CSV instead, or only the texts coded in TextLab.")
    if frame.shape[1] > EXCEL_MAX_COLUMNS:
        raise UserError(f"Excel cannot hold that many columns: the codings need {frame.shape[1]:,}, and a worksheet "
                        f"holds at most {EXCEL_MAX_COLUMNS:,}.", "Export the codings as CSV instead.")


def _write_workbook(path: Path, frame: pd.DataFrame, codebook: Codebook, counts: dict[str, int], overwrite: bool,
                    protected: Iterable[str | Path], on_event: EventCallback, *, n_textlab: int,
                    extra: Callable[[Workbook, Styles], None]) -> Path:
    with writing_to(path, overwrite, protected) as temporary:
        scratch = tempfile.mkdtemp(prefix="textlab-xlsx-")
        workbook = xlsxwriter.Workbook(str(temporary), {
            "constant_memory": len(frame) >= CONSTANT_MEMORY_ROWS, "tmpdir": scratch, "strings_to_numbers": False,
            "strings_to_formulas": False, "strings_to_urls": False, "remove_timezone": True})
        closed = False
        try:
            styles = Styles(workbook)
            _codings_sheet(workbook, styles, frame, on_event, n_textlab)
            _codebook_sheet(workbook, styles, codebook, counts)
            extra(workbook, styles)
            on_event(Progress(0.95, "Saving the Excel workbook"))
            workbook.close()
            closed = True
        finally:
            if not closed:  # close the row files that constant_memory mode keeps open
                for sheet in workbook.worksheets():
                    handle = getattr(sheet, "row_data_fh", None)
                    if handle is not None and not handle.closed:
                        handle.close()
            shutil.rmtree(scratch, ignore_errors=True)
    on_event(Progress(1.0, "Codings written", done=len(frame), total=len(frame)))
    return path


def _codings_sheet(workbook: Workbook, styles: Styles, frame: pd.DataFrame, on_event: EventCallback,
                   n_textlab: int) -> None:
    sheet = workbook.add_worksheet(SHEET)
    rows = len(frame)
    first_textlab = frame.shape[1] - n_textlab  # TextLab's columns come last
    textlab_header = styles.block_header(BLOCK_FILLS[0])
    lines = 1.0
    for col, name in enumerate(frame.columns):
        width = column_width(str(name), frame.iloc[:500, col], header_cap=18)
        sheet.set_column(col, col, width)
        lines = max(lines, text_width(str(name)) / width)
        sheet.write_string(0, col, str(name), textlab_header if col >= first_textlab else styles.header)
    sheet.set_row(0, 15 * max(1.0, np.ceil(min(lines, 4.0))))
    sheet.freeze_panes(1, 0)
    sheet.autofilter(0, 0, max(rows, 1), frame.shape[1] - 1)
    cells = CellFormats(styles.date, styles.datetime, styles.time)
    for start in range(0, rows, CHUNK_ROWS):
        stop = min(start + CHUNK_ROWS, rows)
        write_frame_rows(sheet, frame.iloc[start:stop], start + 1, cells)
        on_event(Progress(0.9 * stop / rows, f"Writing codings: {stop:,} of {rows:,} rows", done=stop, total=rows))


def _codebook_sheet(workbook: Workbook, styles: Styles, codebook: Codebook, counts: dict[str, int]) -> None:
    sheet = workbook.add_worksheet(CODEBOOK_SHEET)
    headers = ["Category", "Definition", "Examples", "Coded texts"]
    for col, (header, width) in enumerate(zip(headers, (24, 60, 60, 12), strict=True)):
        sheet.set_column(col, col, width, styles.wrap if col in (1, 2) else None)
        sheet.write_string(0, col, header, styles.header)
    sheet.freeze_panes(1, 0)
    listed = codebook.with_categories(counts)
    for row, category in enumerate(listed.categories, start=1):
        write_cells(sheet, row, [category.name, category.definition or None,
                                 "\n".join(category.examples) or None, counts.get(category.name, 0)],
                    [None, None, None, styles.count])
