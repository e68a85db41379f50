"""Names of the test documents as a researcher finds them again: the spreadsheet row (title rows
and the header counted, as Excel and LibreOffice show it), where it is counted when that is not
the study's one sheet, and the ID when the study has an ID column — for explanation pages, their
CSV tables and the workbook's word-attribution sheet."""

from __future__ import annotations

from collections.abc import Sequence

from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.explain.documents import format_value


def document_name(row: int, document_id: object = None, rows_in: str = "") -> str:
    """“Row 68”, “Row 68 of sheet “Debates”, ID U-0412”."""
    name = f"Row {int(row)}" + (f" of {rows_in}" if rows_in else "")
    shown = format_value(document_id)  # as the spreadsheet shows it: 1234.0 -> "1234", missing -> ""
    return name + (f", ID {shown}" if shown.strip() else "")


def names_of_test_documents(result: ExperimentResult) -> list[str]:
    """The name of every test document of ``result``, in the order of ``result.test_texts``."""
    n = len(result.test_rows)
    ids = list(result.test_ids) if len(result.test_ids) == n else [None] * n
    return [document_name(row, document_id, result.test_rows_in) for row, document_id in zip(result.test_rows, ids, strict=True)]


def name_explained(documents: Sequence[Sequence], texts: Sequence[str], names: Sequence[str]) -> list[tuple]:
    """``documents`` — the explanations of the non-empty ones among ``texts``, in order, as
    explaining every test document returns them — each with its name from ``names`` (one per text)."""
    kept = [name for name, text in zip(names, texts, strict=True) if text and text.strip()]
    if len(kept) != len(documents):
        raise ValueError(f"{len(documents):,} explanations for {len(kept):,} texts")
    return [(*document[:3], name) for document, name in zip(documents, kept, strict=True)]


def name_test_documents(documents: Sequence[Sequence], result: ExperimentResult,
                        positions: Sequence[int] | None = None) -> list[tuple]:
    """The explanations of every (non-empty) test document of ``result``, named by row and ID.
    ``positions``: each explanation's test document (its position among ``result.test_texts``),
    where a document may be explained several times or not at all (a text with several categories)."""
    names = names_of_test_documents(result)
    if positions is None:
        return name_explained(documents, result.test_texts, names)
    if len(positions) != len(documents):
        raise ValueError(f"{len(positions):,} positions for {len(documents):,} explanations")
    return [(*document[:3], names[int(position)]) for document, position in zip(documents, positions, strict=True)]
