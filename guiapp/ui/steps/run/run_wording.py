"""How the Run step words a study: its name, where its test texts come from, its plan with every fit,
and the time it has taken."""

from __future__ import annotations

from pathlib import Path

from guiapp.core.study.spec import ExperimentSpec


def format_elapsed(seconds: float) -> str:
    """75 -> "1:15", 3725 -> "1:02:05"."""
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def describe_test_texts(spec: ExperimentSpec) -> str:
    """Where the test texts come from, in the user's words."""
    if spec.data.test_source:
        return f"test texts from the file {Path(spec.data.test_source).name}"
    if spec.data.mapping.split_column:
        return f"test texts marked in the column “{spec.data.mapping.split_column}”"
    return f"{spec.evaluation.test_share * 100:.0f} % of your coded texts kept aside as test texts"


def describe_plan(size) -> str:  # a run_size.RunSize
    """What the run will do, with every fit it makes, as the log and ``textlab run`` say it (``run_plan.py``)."""
    return size.describe()


def study_name(spec: ExperimentSpec) -> str:
    if spec.name:
        return spec.name
    if spec.data.source:
        return Path(spec.data.source).name.split(".")[0]
    return "your study"
