"""``textlab predict RESULTS|PROJECT new.xlsx --out predictions.xlsx``: apply a study's trained models to
texts nobody has coded yet, and write the predictions (Excel, CSV or Parquet, by the file ending).

The text column is the study's own when the new table has it; ``--text`` names another. Without
``--model`` the study's best model is used; ``--model`` may be repeated to put models side by side.
Where a text can have several categories, each model writes "<model>: predicted categories" ("economy;
health") and one probability column per category, each category's own chance.
Exit status: 0 written, 2 could not predict (the message says why), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from guiapp.cli.console import ProgressPrinter, stopped
from guiapp.cli.study_models import language_model_lines, open_study_models


def add_predict_command(commands) -> None:
    predict = commands.add_parser("predict", help="apply a study's trained models to new texts and write the predictions")
    predict.add_argument("results", help="the results folder written by `textlab run … --out FOLDER`, or a .textlab project")
    predict.add_argument("file", help="the table of new texts (.xlsx, .ods, .csv, .parquet …)")
    predict.add_argument("--out", required=True, help="where to write the predictions: .xlsx, .csv or .parquet")
    predict.add_argument("--model", action="append", help="a model's name as in the results (repeat for several; default: the best)")
    predict.add_argument("--sheet", help="the sheet of a workbook (default: the first)")
    predict.add_argument("--text", action="append", help="the text column of the new table (repeat to join several)")
    predict.add_argument("--top-words", action="store_true",
                         help="add a column with the five words that pushed each prediction most (quick for "
                              "bag-of-words models; Transformers take about a second or more per text, and a language "
                              "model with your codebook reads its whole prompt again for every word); where a "
                              "text can have several categories, toward the first category it was given, named in "
                              "the cell")
    predict.add_argument("--steps", type=int, default=50,
                         help="integrated-gradients steps for Transformers' top words (default 50)")
    predict.add_argument("--overwrite", action="store_true", help="replace the output file if it exists")


def predict_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.events import Cancelled, Log

    def on_event(event) -> None:
        if isinstance(event, Log):
            progress.clear()
            print(("Warning: " if event.level == "warning" else "") + event.message, file=sys.stderr)
        else:
            progress(event)

    try:
        written = _predict(args, on_event)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped; nothing was written.", 130)
    progress.clear()
    print(f"Wrote {written}")
    return 0


def _predict(args: argparse.Namespace, on_event) -> Path:
    from guiapp.core.errors import UserError
    from guiapp.core.events import Log, sub_progress
    from guiapp.core.explain.top_words import predict_with_words
    from guiapp.core.export.prediction_files import check_output_name, write_predictions
    from guiapp.core.predict.new_texts import texts_of
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.tables.reader import read_table

    out = Path(args.out)
    check_output_name(out)
    if out.exists() and not args.overwrite:
        raise UserError(f"{out} already exists.", "Choose another name, or add --overwrite to replace it.")
    result, models = open_study_models(args.results, args.model, "apply to new texts")
    for line in language_model_lines(models, "predicting"):
        on_event(Log(line))
    table = read_table(args.file, sheet=args.sheet, on_event=sub_progress(on_event, 0.0, 0.1))
    study_columns = list(result.study_source.mapping.text_columns)
    columns = args.text or [c for c in study_columns if c in table.frame.columns]
    if not columns:
        raise UserError(f"The new table has none of the study's text columns ({', '.join(study_columns) or 'none'}).",
                        "Name its text column with --text COLUMN. Its columns: " + ", ".join(map(str, table.frame.columns)))
    missing = [c for c in columns if c not in table.frame.columns]
    if missing:
        raise UserError(f"The new table has no column {', '.join(repr(c) for c in missing)}.",
                        "Its columns: " + ", ".join(map(str, table.frame.columns)))
    texts = texts_of(table.frame, ColumnMapping(text_columns=columns))
    if args.steps < 1:
        raise UserError("--steps must be 1 or more.", "Leave it out to use 50.")
    found = predict_with_words(models, texts, coded_texts=result.test_texts, top_words=args.top_words,
                               steps=args.steps, on_event=sub_progress(on_event, 0.1, 0.8))
    return write_predictions(out, table.frame, found, result=result,
                             overwrite=args.overwrite, protected=[args.file], on_event=sub_progress(on_event, 0.8, 1.0))
