"""``textlab health FILE``: print the data-health report of a table (or of a saved study's table)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from guiapp.cli.console import ProgressPrinter, stopped


def add_health_command(commands) -> None:
    health = commands.add_parser("health", help="print the data-health report of a table")
    health.add_argument("file", nargs="?", help="the table (.xlsx, .ods, .csv, .parquet …)")
    health.add_argument("--spec", help="read file, sheet and columns from a saved spec (.toml/.json)")
    health.add_argument("--sheet", help="the sheet of a workbook (default: the first)")
    health.add_argument("--text", action="append", help="text column (repeat to join several)")
    health.add_argument("--category", help="the column with your categories")
    health.add_argument("--id", dest="id_column", help="an ID column")
    health.add_argument("--split", help="a column with train/test values")
    health.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    health.add_argument("--json", action="store_true", help="print the report as JSON")
    health.add_argument("--save-spec", help="write the data part of a spec to this .toml/.json file")


def health_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.errors import UserError
    from guiapp.core.events import Cancelled
    from guiapp.core.health.report import compute_health
    from guiapp.core.health.text_report import format_health_text
    from guiapp.core.study.mapping import suggest_mapping
    from guiapp.core.study.spec import DataSpec, ExperimentSpec
    from guiapp.core.tables.reader import read_table

    try:
        if args.spec:
            spec = ExperimentSpec.load(args.spec)
            path, sheet, mapping = spec.source_path(args.spec), spec.data.sheet, spec.data.mapping
        elif args.file:
            path, sheet, mapping = Path(args.file), args.sheet, None
        else:
            print("Name a table to check, e.g.: textlab health data.xlsx", file=sys.stderr)
            return 2
        table = read_table(path, sheet=sheet, on_event=progress)
        if mapping is None:
            mapping = suggest_mapping(table.frame)
            if args.text:
                mapping.text_columns = list(args.text)
            if args.category:
                mapping.category_column = args.category
            if args.id_column:
                mapping.id_column = args.id_column
            if args.split:
                mapping.split_column = args.split
        report = compute_health(table.frame, mapping, n_folds=args.folds, on_event=progress)
        progress.clear()
        if args.save_spec:
            ExperimentSpec(data=DataSpec(str(Path(path).resolve()), table.sheet, table.sha256, mapping)).save(args.save_spec)
        if args.json:
            payload = {"file": str(path), "sheet": table.sheet, "sha256": table.sha256,
                       "mapping": mapping.to_dict(), "notices": table.notices, "report": report.to_dict()}
            print(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
        else:
            print(_mapping_text(table, mapping))
            print(format_health_text(report))
        return 1 if report.verdict == "not_ready" else 0
    except UserError as error:
        return stopped(progress, f"{error.message}\n{error.hint}", 2)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped.", 130)


def _mapping_text(table, mapping) -> str:
    where = f"{table.path.name}" + (f", sheet “{table.sheet}”" if table.sheet else "")
    lines = [f"{where}: {len(table.frame):,} rows, {table.frame.shape[1]} columns"]
    lines += [f"  note: {notice}" for notice in table.notices]
    lines.append(f"  text: {', '.join(mapping.text_columns) or '—'}   category: {mapping.category_column or '—'}"
                 f"   ID: {mapping.id_column or '—'}   split: {mapping.split_column or '—'}")
    return "\n".join(lines) + "\n"
