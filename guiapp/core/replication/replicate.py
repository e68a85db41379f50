"""Rerunning a study from its replication package, and comparing the rerun with the original.

:func:`replicate` opens the package (a folder, or a zip unpacked safely), checks every file against
the manifest's SHA-256 before anything in it is opened — a changed model, table or study file is
refused, never loaded — and finds the data: the package's own table, or, when the texts were not
shared, the file the reviewer gives, whose content must have the fingerprint the manifest records
(``manifest.data_fingerprint``; the same table as CSV, Excel or Parquet has the same one). It then
runs the package's study file with the same engine, settings and seed as ``textlab run`` into a
results folder (written whole or not at all), and compares per model the original and the rerun
macro-F1 and the test texts whose answer changed (matched by their ID, else their row).

A model whose numbers moved is rerun with other seeds (only those models, on the same test texts)
to measure how far its numbers move from run to run; ``verdict.py`` then says in words whether the
rerun is identical, within that spread, or different, and why it likely differs: other library
versions, another device, or data that are not the same by hash.
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, ignore_events, sub_progress
from guiapp.core.replication.manifest import check_files, data_fingerprint, package_root, read_manifest
from guiapp.core.replication.verdict import (
    Spread,
    Verdict,
    is_identical,
    likely_reasons,
    model_verdict,
    overall_verdict,
    thread_difference,
)
from guiapp.core.untrusted.json_reading import UnreadableJson, read_json_file

if TYPE_CHECKING:
    import pandas as pd

    from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
    from guiapp.core.study.spec import ExperimentSpec

STUDY_FILE = "study.toml"
RESULTS_FILE = "results/results.json"
ENVIRONMENT_FILE = "environment/environment.json"
RESULTS_LIMIT = 512 << 20  # results.json with every model's predictions and probabilities
ENVIRONMENT_LIMIT = 16 << 20
SEED_LIMIT = 2**32  # numpy's and scikit-learn's seeds lie below this
SPLIT_COLUMN = "TextLab replication: test or training"  # pins the test texts while only the seed changes
MAX_PROBLEMS_SHOWN = 5
PIN_THREADS = "TEXTLAB_CPU_THREADS"  # fixes the CPU threads a Transformer trains with (else chosen by the load)
_THREADS_WHEN_BUSY = re.compile(r"trained with (\d+) threads? on")  # one count; "1 to 2 threads" varied
_THREADS_OFFERED = re.compile(r"^CPU, (\d+) threads?$")


@dataclass
class ModelComparison:
    """One model: its original and rerun macro-F1, the test texts whose answer changed, the spread
    measured with other seeds (when it was) and the verdict."""

    name: str
    original: float | None
    rerun: float | None
    answers_changed: int | None  # None when the answers could not be matched
    answers_compared: int
    verdict: Verdict
    spread: Spread | None = None
    reasons: list[str] = field(default_factory=list)  # the likely reasons, should the numbers differ

    @property
    def difference(self) -> float | None:
        return None if self.original is None or self.rerun is None else self.rerun - self.original

    @property
    def changed_share(self) -> float | None:
        """The share of test texts whose answer changed (None when not compared)."""
        if self.answers_changed is None or not self.answers_compared:
            return None
        return self.answers_changed / self.answers_compared


@dataclass
class Replication:
    """What a replication found: per model, the comparison, and one verdict for the whole study."""

    package: Path
    out: Path
    study_name: str
    data_from: str  # where the data came from, in words
    models: list[ModelComparison]
    overall: Verdict
    rerun: ExperimentResult
    notes: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """0 when the rerun confirms the package (identical or within the spread), 1 when it differs."""
        return 0 if self.overall.agrees else 1


def replicate(package: str | Path, out: str | Path, *, data: str | Path | None = None,
              test_data: str | Path | None = None, spread_seeds: int = 2, n_jobs: int | None = None,
              on_event: EventCallback = ignore_events) -> Replication:
    """Rerun the study of ``package`` into the results folder ``out`` and compare (module docstring).
    ``data`` / ``test_data``: the table / test table when the package does not hold the texts;
    ``spread_seeds``: other seeds to measure the run-to-run spread with (0: not measured).
    UserError, in words, when the package was changed, its data are missing or not the same."""
    from guiapp.core.experiment import run_experiment
    from guiapp.core.experiment.results.output_folder import OutputFolder, cannot_write, space_needed
    from guiapp.core.experiment.results.result_files import write_results
    from guiapp.core.study.spec import ExperimentSpec

    if spread_seeds < 0:
        raise UserError("The number of other seeds cannot be negative.",
                        "Give --spread-seeds 0 to skip measuring the run-to-run spread, or a number such as 2.")
    root = package_root(package)
    manifest = read_manifest(root)
    _refuse_changed_files(root, manifest, Path(out))
    original = _original_result(root)
    spec = ExperimentSpec.load(root / STUDY_FILE)
    described = manifest.get("data") if isinstance(manifest.get("data"), dict) else {}
    table, data_from = _checked_table(root, described, "table", data, spec)
    if spec.data.test_source or isinstance(described.get("test_table"), dict):
        _checked_table(root, described, "test_table", test_data, spec)
    on_event(Log(f"Rerunning “{spec.name or 'the study'}” from the package with seed {spec.seed}, data {data_from}."))

    folder = OutputFolder(out)
    try:
        folder.need_bytes = space_needed(spec)
        share = 0.6 if spread_seeds else 1.0
        threads = _original_threads(original)
        with folder, _pinned_threads(threads, on_event):
            rerun = run_experiment(spec, sub_progress(on_event, 0.0, share), spec_file=root / STUDY_FILE,
                                   n_jobs=n_jobs, artefacts_dir=folder.partial / "models")
            write_results(rerun, folder.partial, moved_to=folder.target)
            folder.commit()
    except OSError as error:
        raise cannot_write(folder.parent, error) from error

    pinned = threads if threads is not None and not os.environ.get(PIN_THREADS, "").strip() else None
    comparisons = _compare(original, rerun, _versions(root, original), _versions_here(rerun), pinned)
    differing = [c for c in comparisons if c.rerun is not None and not is_identical(c.original, c.rerun, c.answers_changed)]
    if differing and spread_seeds:
        with _pinned_threads(threads, ignore_events):
            spreads = _spreads(spec, table, rerun, [c.name for c in differing], spread_seeds, n_jobs,
                               sub_progress(on_event, share, 1.0))
        for comparison in differing:
            comparison.spread = spreads.get(comparison.name)
    for comparison in comparisons:
        if comparison.rerun is not None:
            comparison.verdict = model_verdict(
                comparison.original, comparison.rerun, comparison.answers_changed, comparison.spread,
                comparison.reasons)
    notes = [f"{model.name} failed in the original run, so it is not compared." for model in original.models
             if not model.ok]
    return Replication(Path(package), folder.target, spec.name, data_from, comparisons,
                       overall_verdict([c.verdict for c in comparisons]), rerun, notes)


# -- the package's files -------------------------------------------------------------------------
def _refuse_changed_files(root: Path, manifest: dict[str, Any], out: Path) -> None:
    """Every file as the manifest lists it, before any is opened; the results folder of an earlier
    replication inside the package (``--out rerun`` beside the manifest) is not part of it."""
    skipped = _inside(root, out)
    if out.resolve() == root.resolve() or any(
            skipped and (name == skipped or name.startswith(skipped + "/")) for name in manifest.get("files") or {}):
        raise UserError(f"The folder {out} is part of the package; the rerun's results would replace the package's "
                        "own files.", "Give --out a new folder, e.g. --out rerun.")
    problems = [problem for problem in check_files(root, manifest)
                if not (skipped and "is not listed in the manifest" in problem
                        and (problem.startswith(skipped + "/") or problem.startswith(_hidden_prefix(skipped))))]
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        more = len(problems) - len(shown)
        raise UserError(
            "The package was changed after it was written, so TextLab does not rerun it (nothing in it was opened): "
            + " ".join(shown) + (f" And {more} more problem{'s' if more != 1 else ''}." if more > 0 else ""),
            "Ask the package's author for a fresh copy, or download it again; `textlab verify PACKAGE` lists every "
            "problem.",
            details="\n".join(problems),
        )


def _inside(root: Path, out: Path) -> str:
    """``out`` relative to the package's folder ("" when it lies elsewhere)."""
    try:
        return out.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""


def _hidden_prefix(relative: str) -> str:
    """The start of the lock and partial folder that a results folder has beside it while written."""
    parent, _, name = relative.rpartition("/")
    return f"{parent}/.{name}." if parent else f".{name}."


def _original_result(root: Path) -> ExperimentResult:
    from guiapp.core.experiment.results.experiment_result import ExperimentResult

    path = root / RESULTS_FILE
    if not path.is_file():
        raise UserError(f"The package holds no {RESULTS_FILE}, so there is nothing to compare the rerun with.",
                        "Ask the package's author for a complete package (File → Replication package… in TextLab).")
    try:
        return ExperimentResult.from_dict(read_json_file(path, max_bytes=RESULTS_LIMIT))
    except (UnreadableJson, TypeError, KeyError, ValueError, AttributeError) as error:
        raise UserError(f"The package's {RESULTS_FILE} cannot be read.",
                        "Ask the package's author for a fresh copy.", details=repr(error)) from None


# -- the data ------------------------------------------------------------------------------------
def _checked_table(root: Path, described: dict[str, Any], key: str, given: str | Path | None,
                   spec: ExperimentSpec) -> tuple[pd.DataFrame, str]:
    """The table (``key`` "table") or test table ("test_table") the rerun reads, checked against the
    manifest's fingerprint; the spec is pointed at it. UserError when missing or not the same."""
    entry = described.get(key) if isinstance(described.get(key), dict) else {}
    what, option = ("table of coded texts", "--data") if key == "table" else ("table of test texts", "--test-data")
    expected = str(entry.get("sha256") or "")
    inside_file = entry.get("file")
    if given is not None:
        path, data_from = Path(given), f"from {Path(given).name}"
    elif isinstance(inside_file, str) and inside_file and (root / inside_file).is_file():
        path, data_from = root / inside_file, "from the package"
    else:
        raise UserError(
            f"The package does not hold the {what} (its author may not share the texts), so the study cannot be "
            f"rerun without it. {_wanted(entry)}",
            f"Obtain that table — the exact version the study used — and give it with `{option} FILE`, e.g. "
            f"textlab replicate PACKAGE --out FOLDER {option} {entry.get('source_name') or 'table.xlsx'}")
    frame, sheet = _matching_frame(path, expected)
    found = data_fingerprint(frame)
    if expected and found != expected:
        raise UserError(
            f"The {what} {path.name} is not the one the study used: the SHA-256 of its content is {found}, "
            f"the package's data have {expected}.",
            f"Obtain the table the package describes ({_short_description(entry)}) in the exact version the study "
            f"used, and give it with `{option} FILE`.")
    resolved = str(path.resolve())
    if key == "table":
        spec.data.source, spec.data.sheet, spec.data.sha256 = resolved, sheet, ""
    else:
        spec.data.test_source, spec.data.test_sheet = resolved, sheet
    return frame, data_from


def _matching_frame(path: Path, expected: str) -> tuple[pd.DataFrame, str | None]:
    """The table at ``path`` as the study reads it, and its sheet: of a workbook with several sheets,
    the one whose content has the ``expected`` fingerprint (else its first)."""
    from guiapp.core.tables.reader import read_table

    loaded = read_table(path)
    if expected and loaded.sheets and len(loaded.sheets) > 1 and data_fingerprint(loaded.frame) != expected:
        for sheet in loaded.sheets[1:]:
            other = read_table(path, sheet)
            if data_fingerprint(other.frame) == expected:
                return other.frame, other.sheet
    return loaded.frame, loaded.sheet


def _wanted(entry: dict[str, Any]) -> str:
    return (f"It is {_short_description(entry)}; the SHA-256 of its content is "
            f"{entry.get('sha256') or 'not recorded'}.")


def _short_description(entry: dict[str, Any]) -> str:
    name = entry.get("source_name") or "a table"
    rows = entry.get("rows")
    columns = [str(column.get("name")) for column in entry.get("columns") or [] if isinstance(column, dict)]
    said = f"“{name}”" + (f" with {rows:,} rows" if isinstance(rows, int) else "")
    if columns:
        said += " and the columns " + ", ".join(columns[:12]) + (" …" if len(columns) > 12 else "")
    return said


# -- comparing -----------------------------------------------------------------------------------
def _compare(original: ExperimentResult, rerun: ExperimentResult, recorded: dict[str, str],
             here: dict[str, str], pinned: int | None = None) -> list[ModelComparison]:
    """Per model of the original: the scores, the answers changed and the likely reasons for a
    difference (``pinned``: the CPU threads the rerun's Transformers were held to)."""
    rerun_models = {model.name: model for model in rerun.models}
    keys_before, keys_now = _text_keys(original), _text_keys(rerun)
    comparisons = []
    for model in original.models:
        if not model.ok or model.test is None:
            continue
        again = rerun_models.get(model.name)
        if again is None or not again.ok or again.test is None:
            why = "the rerun has no such model" if again is None else f"it failed in the rerun: {again.message}"
            comparisons.append(ModelComparison(model.name, model.test.macro_f1, None, None, 0,
                                               model_verdict(model.test.macro_f1, None, missing=why)))
            continue
        changed, compared = _answers_changed(original, model, keys_before, rerun, again, keys_now)
        reasons = likely_reasons(recorded, here, original_device=_device(model), this_device=_device(again))
        now = pinned if pinned is not None and _device(again) == "cpu" else threads_used(again)
        threads = thread_difference(threads_used(model), now)
        if threads and not any(reason.startswith("another device") for reason in reasons):
            reasons.insert(0, threads)
        comparisons.append(ModelComparison(model.name, model.test.macro_f1, again.test.macro_f1, changed, compared,
                                           Verdict("", ""), reasons=reasons))
    return comparisons


def _device(model: ModelResult) -> str:
    used = model.device
    return used.kind if used is not None else ""


def threads_used(model: ModelResult) -> int | None:
    """The CPU threads a Transformer trained with, where one count is recorded (None for other models,
    on a GPU, or when the count changed during training)."""
    used = model.device
    if used is None or used.kind != "cpu":
        return None
    for note in model.notes:
        if PIN_THREADS in note or "cores busy" in note:
            found = _THREADS_WHEN_BUSY.search(note)
            return int(found.group(1)) if found else None
    found = _THREADS_OFFERED.match(used.name)
    return int(found.group(1)) if found else None


def _original_threads(original: ExperimentResult) -> int | None:
    """The one CPU thread count every Transformer of the original run trained with (None when none
    trained on the CPU, or their counts are not one known number)."""
    counts = {threads_used(model) for model in original.models
              if model.ok and model.device is not None and model.device.kind == "cpu"}
    return counts.pop() if len(counts) == 1 and None not in counts else None


@contextmanager
def _pinned_threads(threads: int | None, on_event: EventCallback):
    """Train on the CPU with the original's thread count (unless the reviewer set one): how busy the
    reviewer's computer is then cannot change the numbers' last digits."""
    if threads is None or os.environ.get(PIN_THREADS, "").strip():
        yield
        return
    on_event(Log(f"Transformers train on the CPU with {threads} thread{'s' if threads != 1 else ''}, as in the "
                 "original run, so that the sums come out the same."))
    os.environ[PIN_THREADS] = str(threads)
    try:
        yield
    finally:
        os.environ.pop(PIN_THREADS, None)


def _text_keys(result: ExperimentResult) -> list[Any]:
    """What identifies each test text: its ID when every test text has a distinct one, else its row
    (with the file it is counted in)."""
    ids = [str(value) for value in result.test_ids]
    if ids and all(value not in ("", "None", "nan") for value in ids) and len(set(ids)) == len(ids):
        return [("id", value) for value in ids]
    return [("row", result.test_rows_in, int(row)) for row in result.test_rows]


def _answers_changed(original: ExperimentResult, model: ModelResult, keys_before: list[Any],
                     rerun: ExperimentResult, again: ModelResult, keys_now: list[Any]) -> tuple[int | None, int]:
    """How many of the test texts both runs answered got another answer (compared by category name)."""
    if len(model.predictions) != len(keys_before) or len(again.predictions) != len(keys_now):
        return None, 0
    before = dict(zip(keys_before, (_named(original, answer) for answer in model.predictions), strict=True))
    now = dict(zip(keys_now, (_named(rerun, answer) for answer in again.predictions), strict=True))
    common = [key for key in before if key in now]
    if not common:
        return None, 0
    return sum(1 for key in common if before[key] != now[key]), len(common)


def _named(result: ExperimentResult, answer: Any) -> Any:
    try:
        if isinstance(answer, list):
            return tuple(sorted(result.categories[int(code)] for code in answer))
        return result.categories[int(answer)]
    except (IndexError, TypeError, ValueError):
        return ("unreadable", str(answer))


# -- the environment -----------------------------------------------------------------------------
def _versions(root: Path, original: ExperimentResult) -> dict[str, str]:
    """The library versions the package records: every installed distribution (environment.json),
    else the ones the run recorded, and Python's."""
    recorded: dict[str, Any] = dict(original.environment or {})
    versions = {str(k): str(v) for k, v in (recorded.get("packages") or {}).items() if isinstance(v, str)}
    path = root / ENVIRONMENT_FILE
    if path.is_file():
        try:
            environment = read_json_file(path, max_bytes=ENVIRONMENT_LIMIT)
        except (UnreadableJson, OSError):
            environment = {}
        if isinstance(environment, dict):
            distributions = environment.get("distributions")
            if isinstance(distributions, dict):
                versions.update({str(k): str(v) for k, v in distributions.items() if isinstance(v, str | int | float)})
            recorded.setdefault("python", environment.get("python"))
    if recorded.get("python"):
        versions["Python"] = str(recorded["python"])
    versions.pop("cuda", None)
    return versions


def _versions_here(rerun: ExperimentResult) -> dict[str, str]:
    import sys

    from guiapp.core.replication.environment import installed_distributions

    versions = {str(k): str(v) for k, v in (rerun.environment.get("packages") or {}).items()}
    versions.update(installed_distributions())
    versions["Python"] = sys.version.split()[0]
    return versions


# -- the run-to-run spread -----------------------------------------------------------------------
def _spreads(spec: ExperimentSpec, table: pd.DataFrame, rerun: ExperimentResult, names: list[str], seeds: int,
             n_jobs: int | None, on_event: EventCallback) -> dict[str, Spread]:
    """Rerun only the models ``names`` (and the parts of a combined one) with ``seeds`` other seeds,
    on the rerun's test texts, and measure how far each one's macro-F1 moves from the rerun's."""
    from guiapp.core.experiment import run_experiment

    trial, trial_table = _spread_spec(spec, table, rerun, names)
    if trial is None:
        return {}
    rerun_scores = {model.name: model.test.macro_f1 for model in rerun.models if model.ok and model.test}
    moved: dict[str, float] = {}
    for number in range(1, seeds + 1):
        seeded = copy.deepcopy(trial)
        seeded.seed = (spec.seed + 7919 * number) % SEED_LIMIT
        on_event(Log(f"Measuring the run-to-run spread: seed {seeded.seed} ({number} of {seeds})."))
        with tempfile.TemporaryDirectory(prefix="textlab-spread-") as models:
            result = run_experiment(seeded, sub_progress(on_event, (number - 1) / seeds, number / seeds),
                                    table=trial_table, n_jobs=n_jobs, artefacts_dir=models)
        for model in result.models:
            if model.name in names and model.ok and model.test is not None and model.name in rerun_scores:
                distance = abs(model.test.macro_f1 - rerun_scores[model.name])
                moved[model.name] = max(moved.get(model.name, 0.0), distance)
    return {name: Spread(seeds, distance) for name, distance in moved.items()}


def _spread_spec(spec: ExperimentSpec, table: pd.DataFrame, rerun: ExperimentResult,
                 names: list[str]) -> tuple[ExperimentSpec | None, pd.DataFrame | None]:
    """The study with only the models to measure; where the test texts were drawn at random (with the
    seed), they are pinned with a split column so that only the training's randomness changes."""
    by_position = rerun.models[:len(spec.models)]
    wanted = set(names)
    for model in rerun.models:
        if model.name in names and model.combination is not None:
            wanted.update(model.combination.parts)
    kept = [spec.models[i] for i, model in enumerate(by_position) if model.name in wanted]
    if not kept:
        return None, None
    trial = copy.deepcopy(spec)
    trial.models = copy.deepcopy(kept)
    trial.evaluation.combine = any(model.combination is not None for model in rerun.models if model.name in names)
    trial_table = table
    if not spec.data.test_source and not spec.data.mapping.split_column:
        from guiapp.core.tables.rows import positions_of_rows

        trial_table = table.copy()
        roles = ["training"] * len(table)
        for position in positions_of_rows(table, rerun.test_rows):
            if 0 <= position < len(roles):
                roles[int(position)] = "test"
        trial_table[SPLIT_COLUMN] = roles
        trial_table.attrs = dict(table.attrs)
        trial.data.mapping.split_column = SPLIT_COLUMN
    return trial, trial_table
