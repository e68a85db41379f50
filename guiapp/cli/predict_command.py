"""``textlab predict RESULTS|PROJECT new.xlsx --out predictions.xlsx``: apply a study's trained models to
texts nobody has coded yet, and write the predictions (Excel, CSV or Parquet, by the file ending).

The text column is the study's own when the new table has it; ``--text`` names another. Without
``--model`` the study's best model is used; ``--model`` may be repeated to put models side by side.
Where a text can have several categories, each model writes "<model>: predicted categories" ("economy;
health") and one probability column per category, each category's own chance.
With ``--scheduler tcp://…`` or ``--cluster slurm`` the texts are predicted in chunks on Dask workers
that share this computer's file system (``core/predict/predict_on_workers.py``); the chunks done are
kept beside the output, so the same command after Ctrl-C or a crash predicts only the others (the top
words are found on this computer only).
Exit status: 0 written, 2 could not predict (the message says why), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from guiapp.cli.cluster_options import add_cluster_options
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
    add_cluster_options(predict)


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
        if _on_workers(args):
            from guiapp.core.predict.predict_on_workers import parts_folder_for

            if parts_folder_for(args.out).is_dir():
                return stopped(progress, f"Stopped; nothing was written. The chunks already predicted are kept in "
                               f"{parts_folder_for(args.out)}; run the same command again to predict only the others.",
                               130)
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
    if _on_workers(args):
        if args.top_words:
            raise UserError("--top-words is not available when predicting on Dask workers.",
                            "Leave out --top-words, or leave out --scheduler/--cluster to predict on this computer.")
        (result, folders), models = _study_model_folders(args.results, args.model), None
    else:
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
    if models is None:
        from guiapp.core.predict.text_checks import compare_profiles, profile_texts

        if result.test_texts:  # the language and length checks (a model's own token limit is checked on this computer only)
            for warning in compare_profiles(profile_texts(result.test_texts), profile_texts(texts)):
                on_event(Log(warning, "warning"))
        found = _predict_on_workers(args, folders, texts, on_event)
        written = write_predictions(out, table.frame, found, result=result, overwrite=args.overwrite,
                                    protected=[args.file], on_event=sub_progress(on_event, 0.8, 1.0))
        from guiapp.core.predict.predict_on_workers import parts_folder_for, remove_parts

        remove_parts(parts_folder_for(out))
        return written
    found = predict_with_words(models, texts, coded_texts=result.test_texts, top_words=args.top_words,
                               steps=args.steps, on_event=sub_progress(on_event, 0.1, 0.8))
    return write_predictions(out, table.frame, found, result=result,
                             overwrite=args.overwrite, protected=[args.file], on_event=sub_progress(on_event, 0.8, 1.0))


def _on_workers(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "scheduler", None) or getattr(args, "cluster", None))


def _study_model_folders(results: str, names: list[str] | None):
    """(ExperimentResult, [(model name, its folder)]) without opening the models here: the workers open them."""
    from guiapp.core.errors import UserError
    from guiapp.core.predict.saved_results import choose_models, model_folder, read_results

    if Path(results).suffix.lower() == ".textlab":
        from guiapp.core import locations
        from guiapp.core.project.opening import open_project

        project = open_project(results, extract_models_to=locations.cache_dir() / "projects")
        if project.result is None:
            raise UserError("This project has no results yet, so there is nothing to apply to new texts.",
                            "Open it in TextLab, run the study, save the project, and try again.")
        result, find = project.result, (lambda model: project.model_folder(model.name))
    else:
        result = read_results(results)
        find = (lambda model: model_folder(results, model))
    folders = []
    for model in choose_models(result, names):
        folder = find(model)
        if folder is None:
            raise UserError(f"The trained model “{model.name}” was not saved with these results.",
                            "Run the study again with this version of TextLab; it saves every trained model.")
        folders.append((model.name, folder))
    return result, folders


def _predict_on_workers(args: argparse.Namespace, folders, texts, on_event):
    """Predict ``texts`` on the Dask workers that --scheduler or --cluster name (released at the end)."""
    from types import SimpleNamespace

    from guiapp.cli.cluster_options import apply_cluster_options
    from guiapp.core.compute.where import open_executor
    from guiapp.core.events import sub_progress
    from guiapp.core.predict.predict_on_workers import parts_folder_for, predict_on_workers
    from guiapp.core.study.sections import ClusterSpec

    cluster = apply_cluster_options(SimpleNamespace(cluster=ClusterSpec()), args)  # a SpecError says what is wrong
    with open_executor(cluster, 1, on_event) as executor:
        return predict_on_workers(executor.client, folders, texts, parts_folder_for(args.out),
                                  on_event=sub_progress(on_event, 0.1, 0.8))
