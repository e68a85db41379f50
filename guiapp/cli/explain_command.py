"""``textlab explain RESULTS|PROJECT --documents 4,7,12 | --all --out DIR``: explain a study's
decisions on its test documents, without the window.

Documents are named by their spreadsheet row, as the Documents step and the Excel export show
them. DIR receives ``explanations.html`` (the documents with their words coloured, opens in any
browser), ``top words.csv``, ``faithfulness.csv`` and, with ``--all``, ``words per category.csv``.
Where a text can have several categories, an explanation is about one category's own chance:
``--category NAME`` names it; without it a document is explained toward the first category the
model gives it (else its most probable one), and ``--all`` explains each document toward every
category the model gives it.
Exit status: 0 written, 2 could not explain (the message says why), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from guiapp.cli.console import ProgressPrinter, stopped
from guiapp.cli.study_models import language_model_lines, open_study_models


def add_explain_command(commands) -> None:
    explain = commands.add_parser("explain", help="explain a study's decisions on its test documents")
    explain.add_argument("results", help="the results folder written by `textlab run … --out FOLDER`, or a .textlab project")
    which = explain.add_mutually_exclusive_group(required=True)
    which.add_argument("--documents", help="spreadsheet rows of test documents, e.g. 4,7,12")
    which.add_argument("--all", action="store_true", help="every test document, and the words per category")
    explain.add_argument("--out", required=True, help="the folder to write to (made if needed)")
    explain.add_argument("--model", help="a model's name as in the results (default: the best)")
    explain.add_argument("--category", metavar="NAME",
                         help="explain this category instead of each model's own answer (where a text can have "
                              "several categories: which words raised or lowered this category's chance)")
    explain.add_argument("--steps", type=int, default=50, help="integrated-gradients steps for Transformers (default 50)")
    explain.add_argument("--overwrite", action="store_true", help="replace files that exist in the folder")


def explain_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.events import Cancelled

    try:
        written = _explain(args, progress)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped; nothing more was written.", 130)
    progress.clear()
    for path in written:
        print(f"Wrote {path}")
    return 0


def _rows(text: str, test_rows: list[int]) -> list[int]:
    from guiapp.core.errors import UserError

    try:
        wanted = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise UserError(f"“{text}” is not a list of row numbers.", "Write the rows like this: --documents 4,7,12") from None
    index = {row: i for i, row in enumerate(test_rows)}
    missing = [row for row in wanted if row not in index]
    if missing:
        shown = ", ".join(map(str, test_rows[:12])) + (" …" if len(test_rows) > 12 else "")
        raise UserError(f"Row {', '.join(map(str, missing))} is not among the test documents.",
                        f"Use the rows of test documents, as the Documents step shows them: {shown}")
    return [index[row] for row in wanted]


def _explain(args: argparse.Namespace, progress: ProgressPrinter) -> list[Path]:
    from guiapp.core.errors import UserError
    from guiapp.core.events import sub_progress
    from guiapp.core.explain.document_names import name_test_documents, names_of_test_documents
    from guiapp.core.explain.explain_jobs import explain_all, explain_one
    from guiapp.core.export.attributions_html import write_attributions_html
    from guiapp.core.export.attributions_table import write_attributions_csv, write_faithfulness_csv

    result, models = open_study_models(args.results, [args.model] if args.model else None, "explain")
    model = models[0]
    for line in language_model_lines(models, "leaving each word out"):
        progress.clear()
        print(line, file=sys.stderr)
    if not any(result.test_texts):
        raise UserError("These results were saved without the test texts, so they cannot be explained.",
                        "Run the study again with this version of TextLab.")
    target = None
    if args.category is not None:
        if args.category not in result.categories:
            raise UserError(f"The study has no category “{args.category}”.", "Choose one of: " + ", ".join(result.categories))
        target = result.categories.index(args.category)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    words = None  # the words each category relies on, with --all
    if args.all and target is None:
        found = explain_all(model, result.test_texts, result.categories, steps=args.steps,
                            on_event=sub_progress(progress, 0.0, 0.95))
        documents = name_test_documents(found.documents, result, found.positions)
        words = found.words
        if found.words is not None:
            from guiapp.core.export.corpus_words_export import write_corpus_words_csv

            # ranked as its weighted-score column says
            written.append(write_corpus_words_csv(out / "words per category.csv", found.words,
                                                  overwrite=args.overwrite))
    else:
        chosen = range(len(result.test_texts)) if args.all else _rows(args.documents, list(result.test_rows))
        chosen = list(chosen)
        names = names_of_test_documents(result)
        documents = []
        for number, index in enumerate(chosen):
            text = result.test_texts[index]
            step = sub_progress(progress, 0.95 * number / len(chosen), 0.95 * (number + 1) / len(chosen))
            if not text.strip():
                continue
            found = explain_one(model, text, target, steps=args.steps, on_event=step)
            documents.append((text, found.attribution, found.faithfulness, names[index]))
    written += [
        write_attributions_html(out / "explanations.html", documents, f"Why {model.name} decided as it did",
                                overwrite=args.overwrite, words=words),
        write_attributions_csv(out / "top words.csv", documents, overwrite=args.overwrite),
        write_faithfulness_csv(out / "faithfulness.csv", documents, overwrite=args.overwrite),
    ]
    return written
