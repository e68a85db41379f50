"""ExperimentSpec: JSON/TOML round trips and clear messages for bad spec files."""

from __future__ import annotations

import pytest

from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec, SpecError


def _spec() -> ExperimentSpec:
    mapping = ColumnMapping(
        text_columns=["title", "body"],
        category_column="topic",
        id_column="doc",
        split_column=None,
        metadata_columns=["party", "year"],
        text_separator="\n",
    )
    return ExperimentSpec(
        data=DataSpec(source="bills.xlsx", sheet="Bills", sha256="ab" * 32, mapping=mapping),
        name="Bills by topic",
        seed=7,
    )


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_round_trip_through_file(tmp_path, suffix):
    spec = _spec()
    path = tmp_path / f"study{suffix}"
    spec.save(path)
    assert ExperimentSpec.load(path) == spec
    assert not list(tmp_path.glob(".*.tmp"))  # atomic write leaves no temp file


def test_toml_leaves_out_missing_values_and_reads_back_none():
    text = _spec().to_toml()
    assert "split_column" not in text
    assert ExperimentSpec.from_toml(text).data.mapping.split_column is None


def test_hand_written_toml_with_defaults():
    spec = ExperimentSpec.from_toml(
        '[data]\nsource = "tweets.csv"\n[data.mapping]\ntext_columns = ["text"]\ncategory_column = "label"\n'
    )
    assert spec.data.mapping.text_columns == ["text"]
    assert spec.data.mapping.category_column == "label"
    assert spec.data.sheet is None
    assert spec.seed == ExperimentSpec().seed


def test_relative_source_is_resolved_against_the_spec_file(tmp_path):
    spec = ExperimentSpec(data=DataSpec(source="data/tweets.csv"))
    assert spec.source_path(tmp_path / "study.toml") == tmp_path / "data" / "tweets.csv"


def test_unknown_key_is_refused_with_the_allowed_names():
    with pytest.raises(SpecError) as info:
        ExperimentSpec.from_toml('[data]\nsource = "a.csv"\n[data.mapping]\ncategory_colum = "label"\n')
    assert "category_colum" in info.value.message
    assert "category_column" in info.value.hint


def test_invalid_json_names_the_line():
    with pytest.raises(SpecError) as info:
        ExperimentSpec.from_json('{"name": "x",\n "seed": }')
    assert "line 2" in info.value.message


def test_newer_schema_is_refused():
    with pytest.raises(SpecError, match="newer TextLab"):
        ExperimentSpec.from_dict({"schema_version": 99})


def test_missing_spec_file(tmp_path):
    with pytest.raises(SpecError, match="does not exist"):
        ExperimentSpec.load(tmp_path / "nope.toml")
