"""The study file's declared schema: every hand-written mistake a tester found gets a plain sentence."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from guiapp.core.errors import DataError
from guiapp.core.experiment.run.run_size import LARGE_RUN_FITS, count_fits, estimate_run
from guiapp.core.models.conventional import expand_grid
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.schema import (
    SEED_MAX,
    DataSchema,
    EvaluationSchema,
    MappingSchema,
    ModelSchema,
    study_json_schema_text,
)
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import MAX_NESTING, DataSpec, ExperimentSpec, SpecError
from guiapp.core.study.study_data import check_fold_sizes, load_study_data
from tests.core.synthetic_texts import coded_texts

ROOT = Path(__file__).resolve().parents[3]
GOOD = '[data]\nsource = "texts.csv"\n[data.mapping]\ntext_columns = ["text"]\ncategory_column = "label"\n'


def with_line(section: str, line: str) -> str:
    """A complete study with ``line`` at the top level or in ``section`` (replacing that key)."""
    key = line.split("=")[0].strip()
    good = "".join(row + "\n" for row in GOOD.splitlines() if row.split("=")[0].strip() != key)
    if not section:
        return line + "\n" + good
    if section in good:
        return good.replace(section, section + line + "\n", 1)
    return good + section + line + "\n"


def refusal(toml: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        ExperimentSpec.from_toml(toml)
    text = info.value.message + " " + info.value.hint
    assert "Input should" not in text and "pydantic" not in text.lower()  # never pydantic's own words
    return info.value


# --------------------------------------------------------------------------- values of the wrong kind


@pytest.mark.parametrize("seed", [-1, SEED_MAX + 1, 2**64])
def test_seed_outside_numpys_range_is_refused_with_the_range(seed) -> None:
    error = refusal(f"seed = {seed}\n" + GOOD)
    assert f"seed is {seed}" in error.message
    assert f"between 0 and {SEED_MAX}" in error.message


def test_the_largest_seed_is_accepted() -> None:
    assert ExperimentSpec.from_toml(f"seed = {SEED_MAX}\n" + GOOD).seed == SEED_MAX


@pytest.mark.parametrize(
    ("line", "section", "expected"),
    [
        ('schema_version = "one"', "", ['schema_version is "one" (text in quotes)', "whole number: 1"]),
        ('name = { a = 1 }', "", ['name is {"a": 1} (a table)', "text in quotes"]),
        ('folds = "3"', "[evaluation]\n", ['[evaluation] folds is "3" (text in quotes)', "whole number between 2 and 20",
                                          "folds = 3"]),
        ("folds = true", "[evaluation]\n", ["[evaluation] folds is true", "whole number"]),
        ("folds = 2.5", "[evaluation]\n", ["[evaluation] folds is 2.5", "whole number"]),
        ("test_share = 1", "[evaluation]\n", ["[evaluation] test_share is 1", "between 0.05 and 0.9"]),
        ('oversampling = "smote"', "[evaluation]\n", ['"smote"', 'one of: "off", "random"']),
        ("text_columns = 5", "[data.mapping]\n", ["[data.mapping] text_columns is 5", "list of names in quotes",
                                                  '["text"]']),
        ('text_columns = "text"', "[data.mapping]\n", ['[data.mapping] text_columns is "text"',
                                                       'text_columns = ["text"]']),
        ('category_column = ["label"]', "[data.mapping]\n", ['[data.mapping] category_column is ["label"] (a list)',
                                                              'category_column = "label"']),
        ("sheet = 5", "[data]\n", ["[data] sheet is 5", "text in quotes", 'sheet = "5"']),
    ],
)
def test_a_value_of_the_wrong_kind_names_key_value_and_what_is_allowed(line, section, expected) -> None:
    error = refusal(with_line(section, line))
    text = error.message + " " + error.hint
    for part in expected:
        assert part in text, text


def test_a_model_key_path_is_named_with_its_position() -> None:
    error = refusal(GOOD + '[[models]]\nclassifier = "svm"\n[[models]]\ngrid = { C = { a = 1 } }\n')
    assert error.message.startswith("model 2 of [[models]]: grid.C is")


def test_every_problem_of_a_file_is_listed_at_once() -> None:
    error = refusal("seed = -1\nnme = 'x'\n" + GOOD + '[evaluation]\nfolds = "3"\n')
    assert error.message.startswith("The study file has 3 problems:")
    assert "nme" in error.message and "seed is -1" in error.message and "folds" in error.message


def test_unknown_keys_are_still_refused_with_the_allowed_names() -> None:
    error = refusal(GOOD + "[evaluation]\nfoldz = 5\n")
    assert "Unknown setting(s) in [evaluation]: foldz." == error.message
    assert "folds" in error.hint


def test_whole_numbers_with_a_point_and_choices_in_capitals_are_read() -> None:
    spec = ExperimentSpec.from_toml(GOOD + '[evaluation]\nfolds = 4.0\noversampling = " Random "\n')
    assert spec.evaluation.folds == 4 and isinstance(spec.evaluation.folds, int)
    assert spec.evaluation.oversampling == "random"


def test_a_json_schema_key_is_allowed_for_editors() -> None:
    spec = ExperimentSpec.from_json(json.dumps({"$schema": "./study-schema.json", "data": {"source": "a.csv"}}))
    assert spec.data.source == "a.csv"


def test_a_spec_built_in_the_app_is_checked_by_the_same_schema() -> None:
    with pytest.raises(SpecError, match=r"\[evaluation\] folds is 40, but it must be a whole number between 2 and 20"):
        EvaluationSpec(folds=40).check()


# --------------------------------------------------------------------------- the file itself


@pytest.mark.parametrize("suffix", [".toml", ".json"])
@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 5_000, 100_000])
def test_deep_nesting_is_refused_without_a_recursion_error(tmp_path, suffix, depth) -> None:
    path = tmp_path / f"study{suffix}"
    nested = "[" * depth + "]" * depth
    path.write_text(f"name = {nested}\n" if suffix == ".toml" else f'{{"name": {nested}}}', encoding="utf-8")
    with pytest.raises(SpecError, match="nested too deeply"):
        ExperimentSpec.load(path)


def test_brackets_inside_text_and_comments_do_not_count_as_nesting() -> None:
    many = "[" * 200
    spec = ExperimentSpec.from_toml(f'name = "{many}"  # {many}\n' + GOOD)
    assert spec.name == many
    assert ExperimentSpec.from_json(json.dumps({"name": many + '\\"{'})).name == many + '\\"{'


def test_invalid_toml_names_line_and_column_and_shows_the_line() -> None:
    error = refusal(GOOD + "[evaluation]\nfolds = \n")
    assert "line 7, column 9" in error.message
    assert "Line 7: folds =" in error.message
    assert "Check the line named below" not in error.hint


def test_invalid_json_shows_the_line() -> None:
    with pytest.raises(SpecError) as info:
        ExperimentSpec.from_json('{"name": "x",\n "seed": }')
    assert "line 2, column 10" in info.value.message and 'Line 2: "seed": }' in info.value.message


@pytest.mark.parametrize("content", ["", "  \n\n", "\ufeff"])
def test_an_empty_study_file_says_so(tmp_path, content) -> None:
    path = tmp_path / "study.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SpecError, match="study.toml is empty"):
        ExperimentSpec.load(path)


def test_a_study_file_without_source_says_so(tmp_path) -> None:
    path = tmp_path / "study.toml"
    path.write_text('name = "x"\n', encoding="utf-8")
    with pytest.raises(SpecError, match=r"does not say which table to use: \[data\] source is missing"):
        ExperimentSpec.load(path)


def test_a_folder_given_as_the_study_file(tmp_path) -> None:
    with pytest.raises(SpecError, match="is a folder, not a study file"):
        ExperimentSpec.load(tmp_path)


# --------------------------------------------------------------------------- the schema as published


def test_the_committed_json_schema_is_the_generated_one() -> None:
    committed = (ROOT / "docs" / "study-schema.json").read_text(encoding="utf-8")
    assert committed == study_json_schema_text(), "regenerate: python -m guiapp.core.study.schema > docs/study-schema.json"
    schema = json.loads(committed)
    assert schema["$defs"]["EvaluationSchema"]["properties"]["folds"]["maximum"] == 20
    assert "fine_tune" in schema["$defs"]["ModelSchema"]["properties"]["classifier"]["enum"]
    assert "study-schema.json" in (ROOT / "docs" / "spec-format.md").read_text(encoding="utf-8")


def test_schema_defaults_are_the_dataclass_defaults() -> None:
    assert EvaluationSchema().model_dump() == EvaluationSpec().to_dict()
    assert MappingSchema().model_dump() == ColumnMapping().to_dict()
    assert {k: v for k, v in DataSchema().model_dump().items() if k not in ("mapping", "category_fixes")} == {
        k: v for k, v in DataSpec().to_dict().items() if k != "mapping"}  # no fixes: the key is left out
    assert ModelSchema().model_dump() == ModelSpec().to_dict()
    assert ExperimentSpec.from_dict({}) == ExperimentSpec()


# --------------------------------------------------------------------------- the data side


def _study_files(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / "studies"
    folder.mkdir()
    spec = tmp_path / "studies" / "study.toml"
    spec.write_text(GOOD.replace("texts.csv", source), encoding="utf-8")
    return spec


def test_a_table_that_never_existed_is_named_with_its_full_path(tmp_path) -> None:
    spec_file = _study_files(tmp_path, "texts.csv")
    with pytest.raises(DataError) as info:
        load_study_data(ExperimentSpec.load(spec_file), spec_file)
    assert info.value.message == f"The study's table {spec_file.parent / 'texts.csv'} does not exist."
    assert "no longer there" not in info.value.message and 'source = "texts.csv"' in info.value.hint


def test_a_relative_source_outside_the_study_folder_is_named_resolved(tmp_path) -> None:
    coded_texts(60).to_csv(tmp_path / "texts.csv", index=False)
    spec_file = _study_files(tmp_path, "../texts.csv")
    data = load_study_data(ExperimentSpec.load(spec_file), spec_file)
    assert any(f'source = "../texts.csv" is {tmp_path / "texts.csv"}' in note for note in data.notes)


def test_an_absolute_source_is_used_as_written_without_a_note(tmp_path) -> None:
    coded_texts(60).to_csv(tmp_path / "texts.csv", index=False)
    spec_file = _study_files(tmp_path, str(tmp_path / "texts.csv"))
    data = load_study_data(ExperimentSpec.load(spec_file), spec_file)
    assert not any("outside" in note for note in data.notes)


@pytest.mark.parametrize("key", ["sheet", "test_sheet"])
def test_a_sheet_for_a_csv_file_is_refused_when_it_is_read(tmp_path, key) -> None:
    coded_texts(60).to_csv(tmp_path / "texts.csv", index=False)
    coded_texts(30, seed=2).to_parquet(tmp_path / "test.parquet")
    spec = ExperimentSpec(data=DataSpec("texts.csv", mapping=ColumnMapping(["text"], "label"), test_source="test.parquet"))
    setattr(spec.data, key, "Sheet1")
    name = "texts.csv" if key == "sheet" else "test.parquet"
    with pytest.raises(DataError, match=f'{key} is "Sheet1", but {name} is not a workbook'):
        load_study_data(spec, tmp_path / "study.toml")


def test_folds_above_the_smallest_training_category_are_refused_when_the_data_is_loaded() -> None:
    spec = ExperimentSpec(data=DataSpec(mapping=ColumnMapping(["text"], "label")), evaluation=EvaluationSpec(folds=20))
    with pytest.raises(DataError, match=r"categories have fewer training texts than the 20 cross-validation folds"):
        load_study_data(spec, table=coded_texts(60))
    with pytest.raises(DataError, match="use at most 2 folds"):
        check_fold_sizes(np.array([0, 0, 0, 1, 1]), 3)
    with pytest.raises(DataError, match="No number of folds works with a single text"):
        check_fold_sizes(np.array([0, 0, 0, 1]), 3)


# --------------------------------------------------------------------------- the size of a study


def test_a_grid_of_ten_thousand_values_is_counted_quickly_and_is_large() -> None:
    values = [round(0.001 * (i + 1), 3) for i in range(10_000)]
    spec = ExperimentSpec(models=[ModelSpec("bow", "svm", grid={"kernel": ["linear"], "C": values})])
    started = time.perf_counter()
    size = estimate_run(spec, 600, 200, 4, n_jobs=2)
    assert time.perf_counter() - started < 3.0  # the grid's repeats are dropped in linear time
    assert size.fits == 10_000 * 5 + 1 and size.large
    assert size.seconds is not None and size.seconds > 60
    assert "This is a large study: it fits 50,001 models and takes about" in size.warning()


def test_the_default_models_are_a_small_study() -> None:
    spec = ExperimentSpec(models=[ModelSpec("bow", "svm"), ModelSpec("bow", "naive_bayes"),
                                  ModelSpec("transformer", "fine_tune")])
    # SVM 12 settings × 5 folds + 1, naive Bayes 3 × 5 + 1, MiniLM 6 settings × 1 validation split + 1 (no GPU),
    # and the chosen SVM and naive Bayes settings refitted in each of the 5 folds for the combined models
    assert count_fits(spec) == 61 + 16 + 7 + 2 * 5
    assert count_fits(spec, on_gpu=True) == 61 + 16 + 31 + 2 * 5
    size = estimate_run(spec)
    assert not size.large and size.seconds is None and size.fits < LARGE_RUN_FITS
    assert size.describe().startswith("This study fits 94 models. The 2 models try 15 settings on each of 5 folds")
    assert len(expand_grid("svm", {"C": [1, 1.0, 10]})) == 2 * 3 + 2  # 1 and 1.0 are one setting
