"""A JSON study file that gives a key twice is refused, as TOML refuses it, naming the key and where."""

from __future__ import annotations

import json

import pytest

from guiapp.core.study.sections import SpecError
from guiapp.core.study.spec import ExperimentSpec

DATA = '"data": {"source": "texts.csv", "mapping": {"text_columns": ["text"], "category_column": "label"}}'


def _load(tmp_path, text: str) -> ExperimentSpec:
    path = tmp_path / "study.json"
    path.write_text(text, encoding="utf-8")
    return ExperimentSpec.load(path)


def test_a_key_given_twice_in_a_section_is_refused_with_its_name_and_section(tmp_path) -> None:
    with pytest.raises(SpecError) as caught:
        _load(tmp_path, '{' + DATA + ', "evaluation": {"folds": 3, "folds": 8}}')
    assert caught.value.message.startswith("The study file gives “folds” twice in [evaluation]")
    assert "Keep one “folds”" in caught.value.hint


@pytest.mark.parametrize(("text", "where"), [
    ('{"seed": 1, ' + DATA + ', "seed": 2}', "twice in the top level of the file"),
    ('{' + DATA + ', "models": [{"representation": "bow", "classifier": "svm"}, '
     '{"representation": "bow", "classifier": "svm", "classifier": "naive_bayes"}]}', "twice in entry 2 of [models]"),
    ('{"data": {"source": "a.csv", "mapping": {"text_columns": ["t"], "category_column": "x", "category_column": "y"}}}',
     "“category_column” twice in [data.mapping]"),
])
def test_the_place_of_the_repeated_key_is_named(tmp_path, text, where) -> None:
    with pytest.raises(SpecError) as caught:
        _load(tmp_path, text)
    assert where in caught.value.message


def test_a_file_without_repeats_still_reads_and_the_same_key_in_two_sections_is_fine(tmp_path) -> None:
    spec = _load(tmp_path, json.dumps({"data": json.loads("{" + DATA + "}")["data"],
                                       "models": [{"representation": "bow", "classifier": "svm"},
                                                  {"representation": "bow", "classifier": "naive_bayes"}]}))
    assert [model.classifier for model in spec.models] == ["svm", "naive_bayes"]
