"""The methods appendix: one HTML page for the paper, plus the JSON of facts behind it.

``build_appendix`` (``appendix_data.py``) collects the facts of an ``ExperimentResult``;
``appendix_paragraph`` (``appendix_text.py``) writes them as prose; ``render_appendix_html``
(``appendix_html.py``) lays them out as a printable page; ``write_appendix`` saves both files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guiapp.core.atomic import write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.export.appendix_data import build_appendix
from guiapp.core.export.appendix_html import render_appendix_html
from guiapp.core.export.appendix_references import REFERENCE
from guiapp.core.export.appendix_text import appendix_paragraph
from guiapp.core.export.target import check_target, study_data_files

__all__ = ["REFERENCE", "appendix_paragraph", "build_appendix", "render_appendix_html", "write_appendix"]


def write_appendix(
    result: ExperimentResult, html_path: str | Path, *, overwrite: bool = False, **kwargs: Any
) -> tuple[Path, Path]:
    """Write ``X.html`` and ``X.json`` (the facts behind it) and return both paths.

    ``kwargs`` go to :func:`build_appendix` (``data_sha256``, ``extra``). Existing files are kept
    unless ``overwrite`` is true; each file is written whole or not at all.
    """
    html_file = Path(html_path)
    if html_file.suffix.lower() not in {".html", ".htm"}:
        html_file = html_file.with_name(html_file.name + ".html")
    json_file = html_file.with_suffix(".json")
    for path in (html_file, json_file, html_file.with_suffix(".pdf")):  # the PDF printed beside them, too
        check_target(path, overwrite=True, protected=study_data_files(result))
    if not overwrite:
        existing = [path for path in (html_file, json_file) if path.exists()]
        if existing:
            names = " and ".join(path.name for path in existing)
            raise UserError(
                f"{names} already {'exists' if len(existing) == 1 else 'exist'} in {html_file.parent}.",
                "Choose another file name, or agree to replace the existing file.",
            )
    appendix = build_appendix(result, **kwargs)
    text = json.dumps(appendix, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    page = render_appendix_html(appendix)
    try:
        write_text_atomic(json_file, text)
        write_text_atomic(html_file, page)
    except OSError as error:
        raise UserError(
            f"The methods appendix could not be saved in {html_file.parent}.",
            "Check that the folder exists and that you may write there, or choose another folder.",
            str(error),
        ) from error
    return html_file, json_file
