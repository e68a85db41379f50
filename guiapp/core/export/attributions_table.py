"""Word attributions as a table: the top words of each explained document, and how faithful the
explanations were on average, for CSV files and the *Word attributions* sheet of the workbook.

One row per word: which document, model and category, the word's rank and score, and the
document's faithfulness numbers repeated on each of its rows, so a filter in Excel keeps them
together. The table is long rather than wide, which is what R, Stata and pandas read best.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from guiapp.core.explain.attribution import METHOD_NAMES, Attribution, Faithfulness
from guiapp.core.export.highlight_html import top_read_words
from guiapp.core.export.target import writing_to

TOP_K = 10
EXCERPT_CHARACTERS = 80

COLUMNS = [
    "Document", "Text (beginning)", "Model", "Category", "Probability", "Method", "Direction", "Rank",
    "Word", "Score", "Score counted as", "Comprehensiveness", "Sufficiency", "Faithfulness words (k)",
]
SUMMARY_COLUMNS = [
    "Model", "Method", "Documents", "Mean comprehensiveness", "Mean sufficiency", "Words removed or kept (k)",
]
SCALE_LABELS = {"logit": "log-odds (logit)", "margin": "raw model score", "probability": "probability change"}


class ExplainedDocument(NamedTuple):
    """One explained document: ``(text, attribution, faithfulness)``, optionally with a name
    (an ID from the user's table); a plain 3-tuple works wherever this is expected."""

    text: str
    attribution: Attribution
    faithfulness: Faithfulness | None = None
    name: str = ""


def explained(documents: Iterable[Sequence]) -> list[ExplainedDocument]:
    """``documents`` (3- or 4-tuples) as :class:`ExplainedDocument`, named "Document 1", … when unnamed."""
    out = []
    for number, document in enumerate(documents, start=1):
        item = ExplainedDocument(*document)
        out.append(item if item.name else item._replace(name=f"Document {number}"))
    return out


def excerpt(text: str, length: int = EXCERPT_CHARACTERS) -> str:
    """The start of a text on one line, "…" when shortened."""
    flat = " ".join(text.split())
    return flat if len(flat) <= length else flat[: length - 1].rstrip() + "…"


def attribution_rows(documents: Iterable[Sequence], k: int = TOP_K) -> pd.DataFrame:
    """The ``k`` words pushing most toward and the ``k`` pushing most away, per document (words
    in a cut-off part, which the model never read, are left out)."""
    records: list[list[object]] = []
    for document in explained(documents):
        att, faith = document.attribution, document.faithfulness
        common = [document.name, excerpt(document.text), att.model, att.target_name, float(att.probability),
                  METHOD_NAMES.get(att.method, att.method)]
        faithful = ([float(faith.comprehensiveness), float(faith.sufficiency), int(faith.k)]
                    if faith is not None else [None, None, None])
        for direction, toward in (("toward", True), ("away", False)):
            for rank, index in enumerate(top_read_words(att, k, toward), start=1):
                records.append([*common, direction, rank, att.words[index].text, float(att.scores[index]),
                                SCALE_LABELS.get(att.scale, att.scale), *faithful])
    frame = pd.DataFrame(records, columns=COLUMNS)
    for column in ("Comprehensiveness", "Sufficiency", "Probability", "Score"):
        frame[column] = frame[column].astype(float)
    frame["Faithfulness words (k)"] = frame["Faithfulness words (k)"].astype("Int64")
    frame["Rank"] = frame["Rank"].astype(int)
    return frame


def faithfulness_summary(documents: Iterable[Sequence]) -> pd.DataFrame:
    """Mean comprehensiveness and sufficiency per model and method, over the documents checked."""
    records = []
    for document in explained(documents):
        faith = document.faithfulness
        if faith is None:
            continue
        att = document.attribution
        records.append([att.model, METHOD_NAMES.get(att.method, att.method), faith.comprehensiveness,
                        faith.sufficiency, faith.k])
    raw = pd.DataFrame(records, columns=["Model", "Method", "c", "s", "k"])
    if raw.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    grouped = raw.groupby(["Model", "Method"], sort=False)
    summary = grouped.agg(documents=("c", "size"), comprehensiveness=("c", "mean"), sufficiency=("s", "mean"),
                          k=("k", lambda ks: ", ".join(str(v) for v in sorted(set(ks))))).reset_index()
    summary.columns = SUMMARY_COLUMNS
    return summary


def _write_frame(path: str | Path, frame: pd.DataFrame, overwrite: bool, protected: Iterable[str | Path]) -> Path:
    with (
        writing_to(path, overwrite, protected) as temporary,
        open(temporary, "w", encoding="utf-8-sig", newline="") as handle,
    ):
        frame.to_csv(handle, index=False, lineterminator="\n")
    return Path(path)


def write_attributions_csv(
    path: str | Path,
    documents: Iterable[Sequence],
    *,
    k: int = TOP_K,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
) -> Path:
    """The word rows as UTF-8 CSV with a byte-order mark (Excel reads the accents right)."""
    return _write_frame(path, attribution_rows(documents, k), overwrite, protected)


def write_faithfulness_csv(
    path: str | Path,
    documents: Iterable[Sequence],
    *,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
) -> Path:
    """The mean faithfulness per model and method as UTF-8 CSV."""
    return _write_frame(path, faithfulness_summary(documents), overwrite, protected)
