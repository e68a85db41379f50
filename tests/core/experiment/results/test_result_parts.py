"""Results read as typed records: a results file written before the records existed opens with every
field in place, and writing it again gives the same file."""

from __future__ import annotations

import json
from pathlib import Path

from guiapp.core.experiment.results.result_parts import DeviceUsed, StudySplit
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult

FIXTURE = Path(__file__).parents[3] / "fixtures" / "results_v1.json"


def _old_result() -> ExperimentResult:
    return ExperimentResult.from_json(FIXTURE.read_text(encoding="utf-8"))


def test_an_old_results_file_round_trips_unchanged():
    text = FIXTURE.read_text(encoding="utf-8")
    result = ExperimentResult.from_json(text)
    assert json.loads(result.to_json(include_texts=True)) == json.loads(text)
    assert result.to_json(include_texts=True) == text


def test_the_study_split_and_protocol_of_an_old_file():
    result = _old_result()
    words = "4 texts (25%) set aside at random for the test, 12 for training"
    assert result.test_split == StudySplit("random", 12, 4, words)
    assert result.test_split.at_random and not result.test_split.from_test_file
    assert result.test_split.coded_texts == 16 and result.n_test_texts == 4
    study = result.study_source
    assert (study.study_name, study.source, study.sheet, study.rows) == (
        "Manifestos 2021", "C:\\Users\\ana\\manifestos.xlsx", "Coded", 1122)
    assert study.sha256 == "ab" * 32 and study.test_source == "" and study.test_sheet is None
    assert study.mapping.text_columns == ["Text"] and study.mapping.category_column == "Topic"
    assert study.mapping.id_column == "ID" and study.mapping.metadata_columns == ["Party", "Year"]
    assert study.category_fixes.merge == {"Econ": "Economy"} and study.category_fixes.trim_spaces
    assert study.data_files == ["C:\\Users\\ana\\manifestos.xlsx"]
    protocol = result.protocol
    assert (protocol.folds, protocol.test_share, protocol.bootstrap_samples, protocol.seed) == (3, 0.25, 200, 7)
    assert (protocol.oversampling, protocol.oversampling_ratio, protocol.cv_repeats) == ("random", 0.5, 1)
    assert protocol.transformer_tuning == "auto" and protocol.validation_share == 0.2


def test_each_models_settings_of_an_old_file():
    bow, transformer, vote, failed = _old_result().models
    assert bow.tuning == "" and bow.device is None and bow.notes == [] and bow.setting_choice is None
    assert bow.combination is None and bow.total_seconds == 4.01
    assert bow.representation_options == {"min_df": 0.001, "ngram_range": [1, 2]}
    assert bow.settings_tried == {"C": [0.1, 1.0], "kernel": ["linear"]}

    assert transformer.tuning == "one validation split (20% of the training texts)"
    assert transformer.device == DeviceUsed("cuda", "NVIDIA H100 80GB HBM3", True)
    assert transformer.notes == ["3 of 12 training texts were longer than 128 tokens and were cut."]
    choice = transformer.setting_choice
    assert choice is not None and (choice.chosen, choice.best, choice.rule) == (1, 3, "cheapest within noise")
    assert choice.interval == (0.69, 0.78) and choice.edges == {"learning_rate": "highest"}
    assert choice.extended_grid == {"learning_rate": [5e-05, 0.0001], "epochs": [2, 4]}

    combination = vote.combination
    assert combination is not None and combination.parts == ["SVM · Basic BOW", "Fine-tuned all-MiniLM-L6-v2"]
    assert combination.weights == {"SVM · Basic BOW": 0.35, "Fine-tuned all-MiniLM-L6-v2": 0.65}
    assert combination.learnt_on_texts == 2 and combination.learnt_on.startswith("the 2 of 12")
    assert vote.total_seconds == 200.51

    assert not failed.ok and failed.total_seconds is None and failed.device is None


def test_the_records_follow_changes_to_the_recorded_dictionaries():
    result = _old_result()
    result.split["how"] = "test file"
    result.spec["data"]["test_source"] = "holdout.csv"
    assert result.test_split.from_test_file
    assert result.study_source.data_files == ["C:\\Users\\ana\\manifestos.xlsx", "holdout.csv"]


def test_a_result_that_recorded_little_reads_as_not_recorded():
    result = ExperimentResult(spec={}, categories=["a", "b"], split={}, test_rows=[], test_ids=[], test_texts=[],
                              test_true=[])
    assert result.test_split == StudySplit() and result.test_split.coded_texts is None and result.n_test_texts == 0
    assert result.study_source.study_name == "" and result.study_source.rows is None
    assert result.study_source.data_files == [] and not result.study_source.is_file("anything.xlsx")
    assert result.protocol.folds is None and result.protocol.samples(1000) == 1000
    odd = ModelResult("m", "transformer", "fine_tune", spec={"device": "cpu", "notes": "cut", "tuning": None,
                                                              "setting_choice": {"interval": "wide"}, "grid": []})
    assert odd.device is None and odd.notes == [] and odd.tuning == "" and odd.setting_choice is None
    assert odd.settings_tried == {} and odd.representation_options == {}


def test_the_study_names_its_table_by_path(tmp_path):
    table = tmp_path / "coded.xlsx"
    result = ExperimentResult(spec={"data": {"source": str(tmp_path / "." / "coded.xlsx")}}, categories=[], split={},
                              test_rows=[], test_ids=[], test_texts=[], test_true=[])
    assert result.study_source.is_file(table)
    assert not result.study_source.is_file(tmp_path / "other.xlsx")
