"""``prepare_cluster_folder``: everything a study needs to run on a SLURM cluster, in one folder to
copy there.

The folder holds ``data.parquet`` (the study's table as TextLab read it: every row, the columns
the study uses), ``test-data.parquet`` for a study with a separate test file, ``study.toml``
pointing at them (with the table's SHA-256, so a run notices a changed file), the batch script
``run-on-cluster.sbatch``, ``SHA256SUMS`` (``sha256sum -c SHA256SUMS`` checks the copy) and a
plain-English ``README.txt``. It is built in a hidden folder beside the target and renamed into
place, so a folder that is there is whole.
"""

from __future__ import annotations

import copy
import io
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import pandas as pd

from guiapp.core.atomic import (
    fsync_folder,
    sha256_of_file,
    usual_folder_permissions,
    write_bytes_atomic,
    write_text_atomic,
)
from guiapp.core.compute.cluster_readme import readme_text
from guiapp.core.compute.sbatch_script import SCRIPT_NAME, sbatch_script
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events, sub_progress
from guiapp.core.study.mapping import check_mapping
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import read_study_table
from guiapp.core.tables.arrow_columns import ARROW_ERRORS, mixed_columns_as_text

DATA_FILE = "data.parquet"
TEST_DATA_FILE = "test-data.parquet"
STUDY_FILE = "study.toml"
SUMS_FILE = "SHA256SUMS"
README_FILE = "README.txt"
RESULTS_FOLDER = "results"


def used_columns(spec: ExperimentSpec, frame: pd.DataFrame) -> list:
    """The table's columns the study's mapping uses, in the table's order."""
    mapping = spec.data.mapping
    wanted = {*mapping.text_columns, *mapping.metadata_columns}
    wanted |= {name for name in (mapping.category_column, mapping.id_column, mapping.split_column) if name}
    return [column for column in frame.columns if str(column) in wanted]


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """The table as Parquet; a column that mixes numbers and words is kept as text (as the study reads it)."""
    frame = frame.set_axis([str(column) for column in frame.columns], axis=1).reset_index(drop=True)
    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer, engine="pyarrow", compression="zstd", index=False)
    except (*ARROW_ERRORS, ValueError, TypeError):
        buffer = io.BytesIO()
        mixed_columns_as_text(frame)[0].to_parquet(buffer, engine="pyarrow", compression="zstd", index=False)
    return buffer.getvalue()


def check_target(folder: Path) -> None:
    """Refuse a file, or a folder that already holds something."""
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} is a file, not a folder.", "Choose a name for a new folder.")
    if folder.is_dir() and any(folder.iterdir()):
        raise UserError(
            f"The folder {folder} is not empty.",
            "Choose a new folder (or an empty one): the cluster folder holds only what the study needs, "
            "and nothing already there is replaced.",
        )


def prepare_cluster_folder(spec: ExperimentSpec, folder: str | Path, *, spec_file: str | Path | None = None,
                           table: pd.DataFrame | None = None, test_table: pd.DataFrame | None = None,
                           on_event: EventCallback = ignore_events) -> Path:
    """Write the cluster folder for ``spec`` (whose ``[cluster]`` says the worker jobs) into ``folder``.

    ``table`` (and ``test_table``) are the study's tables as already read (the app holds them);
    otherwise they are read from where the study file ``spec_file`` says. Returns the folder.
    """
    folder = Path(folder).expanduser().absolute()
    check_target(folder)
    if not spec.models:
        raise UserError("The study has no models to compare.", "Tick at least one model, then prepare the folder.")
    cluster = replace(spec.cluster, scheduler="", system="slurm", setup=list(spec.cluster.setup))
    script = sbatch_script(spec.name, STUDY_FILE, RESULTS_FOLDER, cluster)  # checks the settings first

    notes: list[str] = []
    if table is None:
        table = read_study_table(spec, spec_file, notes, on_event=sub_progress(on_event, 0.0, 0.4)).frame
    if spec.data.test_source and test_table is None:
        test_table = read_study_table(spec, spec_file, notes, test=True,
                                      on_event=sub_progress(on_event, 0.4, 0.6)).frame
    check_mapping(table, spec.data.mapping)
    if test_table is not None:
        check_mapping(test_table, spec.data.mapping)
    on_event(Progress(0.6, "Writing the data"))
    columns = used_columns(spec, table)
    data = parquet_bytes(table[columns])
    test_data = parquet_bytes(test_table[used_columns(spec, test_table)]) if spec.data.test_source else None

    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".partial", dir=folder.parent))
    try:
        usual_folder_permissions(building)
        write_bytes_atomic(building / DATA_FILE, data)
        sums = [(sha256_of_file(building / DATA_FILE), DATA_FILE)]
        if test_data is not None:
            write_bytes_atomic(building / TEST_DATA_FILE, test_data)
            sums.append((sha256_of_file(building / TEST_DATA_FILE), TEST_DATA_FILE))
        on_event(Progress(0.85, "Writing the study file and the job script"))
        study = copy.deepcopy(spec)
        study.data = replace(study.data, source=DATA_FILE, sheet=None, sha256=sums[0][0],
                             test_source=TEST_DATA_FILE if test_data is not None else "", test_sheet=None)
        study.cluster = cluster
        study.save(building / STUDY_FILE)
        write_text_atomic(building / SCRIPT_NAME, script)
        (building / SCRIPT_NAME).chmod((building / SCRIPT_NAME).stat().st_mode | 0o111)
        write_text_atomic(building / SUMS_FILE, "".join(f"{digest}  {name}\n" for digest, name in sums))
        write_text_atomic(building / README_FILE, readme_text(spec.name, folder.name, cluster, len(table), test_data is not None))
        if folder.is_dir():
            check_target(folder)  # still empty: nothing appeared there meanwhile
            folder.rmdir()
        building.rename(folder)
        fsync_folder(folder.parent)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    for note in notes:
        on_event(Log(note, "warning"))
    on_event(Log(f"Wrote the cluster folder {folder} ({len(table):,} rows, {len(columns)} columns)."))
    on_event(Progress(1.0, "Done"))
    return folder


FOLDER_FILES = (DATA_FILE, STUDY_FILE, SCRIPT_NAME, SUMS_FILE, README_FILE)
