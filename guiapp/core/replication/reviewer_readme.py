"""The README of a replication package, written for a reviewer who has nothing but the package:
what is inside, the two commands to run, how long the study took on the computer that wrote it,
and — when the texts may not be shared — what data to obtain and how to check it is the same.

Every file the README names is written in backticks (`results/results.json`), and only files are:
commands stand in fenced blocks. :func:`named_files` reads those names back, so ``textlab verify``
can check that each one is in the package.
"""

from __future__ import annotations

import re
from typing import Any

_DESCRIPTIONS = {
    "README.md": "this file",
    "manifest.json": "the SHA-256 and size of every file, the data's fingerprint, the models' files and the original scores",
    "study.toml": "the study file as it was run: the settings, the seed, the models compared, the category fixes",
    "codebook.json": "the codebook: the categories with their definitions and examples",
    "codings.json": "every coding made in TextLab: which text, which category, which coder, how each text was "
                    "chosen, the adjudications and the codebook's versions",
    "data/table.parquet": "the table of coded texts, exactly as the study read it",
    "data/test_table.parquet": "the separate table of test texts, exactly as the study read it",
    "results/results.json": "the original run's results: every model's scores, settings and predictions",
    "results/predictions.csv": "one row per test text and model: the coding, the model's answer and its chances",
    "results/results.xlsx": "the same results as an Excel workbook",
    "results/methods-appendix.html": "the methods appendix for the paper",
    "results/methods-appendix.pdf": "the methods appendix, printed",
    "results/methods-appendix.json": "the facts behind the methods appendix",
    "results/findings.xlsx": "the shares of categories the Findings step estimated",
    "environment/environment.json": "the computer and software that ran the study: TextLab, Python, the processor, "
                                    "the graphics card, every library's version",
    "environment/requirements.txt": "the libraries' versions as a list for pip",
    "report-card/report-card.html": "the report card of the recommended model",
    "report-card/report-card.pdf": "the report card, printed",
    "report-card/report-card.json": "the facts behind the report card",
}
_NAMED = re.compile(r"`([^`\s]+)`")
_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*/?$")


def duration_words(seconds: float | None) -> str:
    """``192.4`` → "3 minutes 12 seconds"; None → "an unknown time"."""
    if seconds is None or seconds != seconds or seconds < 0:
        return "an unknown time"
    whole = round(seconds)
    if whole < 60:
        return "less than a second" if seconds < 1 else f"{whole} second{'s' if whole != 1 else ''}"
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(hours, "hour"), (minutes, "minute")] + ([(secs, "second")] if not hours else [])
    return " ".join(f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n)


def reviewer_readme(manifest: dict[str, Any], files: list[str], notes: list[str] | None = None) -> str:
    """The README's text for a package whose manifest (without ``files``) is ``manifest`` and which
    holds ``files`` (paths relative to the package); ``notes`` say what could not be included."""
    name = manifest.get("study_name") or "this study"
    version = manifest.get("textlab_version") or "?"
    data = manifest.get("data") or {}
    table = data.get("table") or {}
    test_table = data.get("test_table")
    environment = manifest.get("environment_summary") or {}
    lines = [
        f"# Replication package: {name}",
        "",
        f"This folder holds everything needed to rerun the study “{name}” with TextLab and to see whether the "
        f"same scores come out. TextLab {version} wrote it on {str(manifest.get('created', ''))[:10] or 'an unknown day'}.",
        "",
        "## What to run",
        "",
        f"1. Install TextLab {version}. The versions of the libraries the study ran with are listed in "
        "`environment/requirements.txt`; to use the same ones, run in a fresh Python environment:",
        "",
        "   ```",
        "   python -m pip install -r environment/requirements.txt",
        "   ```",
        "",
        "2. In this folder, run:",
        "",
        "   ```",
        "   textlab verify .",
        "   textlab replicate . --out rerun",
        "   ```",
        "",
        "   The first command checks that every file is here and unchanged (by its SHA-256), without rerunning "
        "anything. The second reruns the study with the same settings and seed and prints, for each model, the "
        "original and the rerun macro-F1, their difference, the share of test texts whose answer changed, and a "
        "verdict in words: identical, within the run-to-run spread, or different (with the likely reason).",
        "",
        f"The study took {duration_words(manifest.get('run_seconds'))} on the computer that wrote this package "
        f"({_computer(environment)}). A rerun takes about as long on a similar computer, and longer where it also reruns the study with other "
        "seeds to measure the run-to-run spread.",
        "",
        "## The data",
        "",
    ]
    if data.get("included"):
        lines.append(f"`{table.get('file') or 'data/table.parquet'}` holds the table of coded texts exactly as the study "
                     f"read it: {_rows_and_columns(table)}. The original file was "
                     f"“{table.get('source_name') or 'not named'}”.")
        if test_table:
            lines.append(f"`{test_table.get('file') or 'data/test_table.parquet'}` holds the separate test texts: "
                         f"{_rows_and_columns(test_table)}.")
    else:
        lines += [
            "The texts may not be shared, so this package holds no data: only what identifies it. "
            f"To rerun the study, obtain the table “{table.get('source_name') or 'the study’s table'}” from the "
            "authors and give it to TextLab:",
            "",
            "```",
            "textlab replicate . --data FILE --out rerun",
            "```",
            "",
            "TextLab checks that it is the same table before it reruns anything. It must have:",
            "",
            *_identity(table),
        ]
        if test_table:
            lines += ["", "The study also used a separate table of test texts; obtain it too and give both:", "",
                      "```", "textlab replicate . --data FILE --test-data TEST_FILE --out rerun", "```", "",
                      "The table of test texts must have:", "", *_identity(test_table)]
    lines += ["", "## What is inside", "", "| File | What it is |", "| --- | --- |"]
    shown = set()
    for path in sorted(files, key=_order):
        if path.startswith("models/"):
            model_folder = "/".join(path.split("/")[:2]) + "/"
            if model_folder in shown:
                continue
            shown.add(model_folder)
            lines.append(f"| `{model_folder}` | {_model_description(manifest, model_folder)} |")
            continue
        shown_without_texts = " (without the texts)" if path.startswith(("results/", "report-card/")) and \
            path.endswith((".csv", ".xlsx", ".html", ".pdf")) and not data.get("included") else ""
        lines.append(f"| `{path}` | {_DESCRIPTIONS.get(path, 'part of the package')}{shown_without_texts} |")
    results = manifest.get("results") or {}
    if results:
        lines += ["", "## The original scores", "",
                  "Macro-F1 on the test texts (the mean of the F1 scores of the categories), as the rerun will compare them:",
                  "", "| Model | Macro-F1 | Test texts |", "| --- | --- | --- |"]
        for model, scores in results.items():
            lines.append(f"| {model} | {float(scores.get('macro_f1', float('nan'))):.4f} | {scores.get('test_rows', '')} |")
    if notes:
        lines += ["", "## Not included", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _order(path: str) -> tuple[int, str]:
    order = ["README.md", "manifest.json", "study.toml", "codebook.json", "codings.json", "data/", "results/",
             "report-card/", "models/", "environment/"]
    rank = next((i for i, start in enumerate(order) if path == start or path.startswith(start)), len(order))
    return rank, path


def _model_description(manifest: dict[str, Any], folder: str) -> str:
    for name, model in (manifest.get("models") or {}).items():
        if str(model.get("folder", "")).rstrip("/") + "/" == folder:
            return f"the trained model “{name}”, as the run saved it (safe formats; each file's SHA-256 in the manifest)"
    return "a trained model, as the run saved it"


def _rows_and_columns(table: dict[str, Any]) -> str:
    columns = table.get("columns") or []
    return f"{table.get('rows', '?'):,} rows and {len(columns)} columns" if isinstance(table.get("rows"), int) else \
        f"{len(columns)} columns"


def _identity(table: dict[str, Any]) -> list[str]:
    lines = [
        f"- {table.get('rows', '?'):,} rows" if isinstance(table.get("rows"), int) else "- the same rows",
        f"- content fingerprint (SHA-256 of its cells, the same whether it is saved as CSV, Excel or Parquet): "
        f"{table.get('sha256', '?')}",
    ]
    if table.get("source_sha256"):
        lines.append(f"- SHA-256 of the original file “{table.get('source_name') or '?'}” (to compare with "
                     f"sha256sum): {table['source_sha256']}")
    lines.append("- these columns, in this order:")
    for column in table.get("columns") or []:
        role = column.get("role", "unused")
        used = "" if role == "unused" else f", used as the {role}"
        lines.append(f"  - “{column.get('name')}” ({column.get('dtype', '?')}{used})")
    return lines


def _computer(environment: dict[str, Any]) -> str:
    parts = [environment.get("processor") or "an unknown processor"]
    if environment.get("cpu_count"):
        parts.append(f"{environment['cpu_count']} processor cores")
    parts.append(f"graphics card {environment['gpu']}" if environment.get("gpu") else "no graphics card used")
    if environment.get("platform"):
        parts.append(str(environment["platform"]))
    return ", ".join(parts)


def named_files(readme: str) -> list[str]:
    """The package files the README names in backticks (outside fenced command blocks), in order."""
    names: list[str] = []
    fenced = False
    for line in readme.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for found in _NAMED.findall(line):
            if _PATH.match(found) and ("/" in found or "." in found) and found not in names:
                names.append(found)
    return names
