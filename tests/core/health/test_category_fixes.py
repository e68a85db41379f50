"""Category fixes: the health report and the run agree on categories too small for the folds,
name them with their hidden spaces, and one-click fixes recorded in the study are applied in the
one place both read categories from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.health.report import compute_health
from guiapp.core.study.category_fixes import CategoryFixes, spelling_key, trim, visible
from guiapp.core.study.mapping import ColumnMapping, apply_mapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.study_data import check_fold_sizes, load_study_data

MAPPING = ColumnMapping(["text"], "label")


def words(texts, _on_event):
    return [len(text.split()) for text in texts], "words"


def statements(extra: dict[str, int] | None = None) -> pd.DataFrame:
    """40 Republican, 40 Democratic texts, plus the given small categories."""
    counts = {"Republican": 40, "Democratic": 40, **(extra or {})}
    labels = [label for label, n in counts.items() for _ in range(n)]
    vocab = {"Republican": "tax border freedom", "Democratic": "health climate union"}
    texts = [f"{vocab.get(label.strip(), 'other matters')} statement {i}" for i, label in enumerate(labels)]
    return pd.DataFrame({"text": texts, "label": labels})


def health(frame, **kwargs):
    return compute_health(frame, MAPPING, token_counter=words, **kwargs)


def issue(report, code):
    found = [i for i in report.issues if i.code == code]
    assert found, f"no {code} in {[i.code for i in report.issues]}"
    return found[0]


# --------------------------------------------------------------------------- showing and keys


def test_hidden_characters_are_shown() -> None:
    assert visible("Democratic ") == "Democratic␣"
    assert visible(" Other") == "␣Other"
    assert visible("Pro\u00a0life") == "Pro[non-breaking space]life"
    assert visible("Pro\tlife\u200b") == "Pro[tab]life[zero-width space]"
    assert trim(" Democratic\u00a0\u200b") == "Democratic" and trim("Pro   life") == "Pro life"
    assert spelling_key("Pro-Life ") == spelling_key("pro life") == spelling_key("ＰＲＯ life")


# --------------------------------------------------------------------------- the report and the run agree


def test_a_category_with_two_texts_makes_the_data_not_ready_and_is_named_with_its_space() -> None:
    # 2 coded texts: the 30 % hold-out leaves 1 for training, as the run's own split does
    frame = statements({"Democratic ": 2})
    report = health(frame)
    assert report.verdict == "not_ready"
    small = issue(report, "small_categories")
    assert small.severity == "error"
    assert small.title == "“Democratic␣” has fewer than 5 coded training texts"
    assert "“Democratic␣” (1)" in small.explanation and "30%" in small.explanation
    assert "No number of folds works" in small.fix and "at most" not in small.fix
    # the run stops on the same category with the same count
    with pytest.raises(DataError) as info:
        load_study_data(ExperimentSpec(data=DataSpec(mapping=MAPPING)), table=frame)
    assert info.value.message == ("The category “Democratic␣” has only 1 training text, fewer than the 5 "
                                  "cross-validation folds, so some folds would miss it.")
    assert "at most" not in info.value.hint and "leave it out" in info.value.hint


def test_six_texts_are_too_few_after_the_hold_out_though_more_than_the_folds() -> None:
    report = health(statements({"Other": 6}))
    assert report.verdict == "not_ready"
    assert issue(report, "small_categories").title == "“Other” has fewer than 5 coded training texts"
    with pytest.raises(DataError, match="“Other” has only 4 training texts"):
        load_study_data(ExperimentSpec(data=DataSpec(mapping=MAPPING)), table=statements({"Other": 6}))
    # with a separate test file every coded text trains: then 6 are enough
    assert health(statements({"Other": 6}), test_share=None).verdict != "not_ready"


def test_the_run_message_counts_and_suggests_right() -> None:
    with pytest.raises(DataError) as info:
        check_fold_sizes(np.array([0] * 9 + [1] * 3 + [2] * 2), 5, ["A", "B", "C"])
    assert info.value.message == ("2 categories have fewer training texts than the 5 cross-validation folds, "
                                  "so some folds would miss them: “C” (2), “B” (3).")
    assert "use at most 2 folds" in info.value.hint
    with pytest.raises(DataError, match=r"has only 1 coded text, so it cannot be among both"):
        load_study_data(ExperimentSpec(data=DataSpec(mapping=MAPPING)), table=statements({"Green": 1}))


# --------------------------------------------------------------------------- each fix


def test_spelling_variants_are_offered_as_a_merge_and_the_merge_fixes_the_report() -> None:
    frame = statements({"Democratic ": 2, "democratic": 1})
    report = health(frame)
    spelling = issue(report, "category_spelling")
    labels = [action.label for action in spelling.actions]
    assert labels == ["Merge 2 spellings into “Democratic”"]
    fixed = health(frame, fixes=spelling.actions[0].fixes)
    assert fixed.verdict != "not_ready"
    assert [c.label for c in fixed.categories] == ["Democratic", "Republican"]
    assert fixed.categories[0].count == 43 and fixed.category_fixes.merge == {"Democratic ": "Democratic",
                                                                              "democratic": "Democratic"}


def test_trim_spaces_is_offered_for_a_category_with_hidden_spaces() -> None:
    frame = statements({"Other\u00a0": 12})
    trim_issue = issue(health(frame), "category_spaces")
    assert "“Other[non-breaking space]” (12)" in trim_issue.explanation
    assert [a.label for a in trim_issue.actions] == ["Trim spaces"]
    fixed = health(frame, fixes=trim_issue.actions[0].fixes)
    assert "Other" in [c.label for c in fixed.categories]
    assert not [i for i in fixed.issues if i.code == "category_spaces"]


def test_leaving_out_small_categories_makes_the_data_ready_and_counts_them_apart() -> None:
    frame = statements({"Green": 3, "Other": 2})
    small = issue(health(frame), "small_categories")
    assert small.title == "2 categories have fewer than 5 coded training texts"
    assert [a.label for a in small.actions] == ["Leave out these 2 categories"]
    fixed = health(frame, fixes=small.actions[0].fixes)
    assert fixed.verdict != "not_ready"
    assert fixed.n_left_out == 5 and fixed.n_uncoded == 0 and fixed.n_coded == 80
    assert issue(fixed, "left_out_rows").title == "5 coded texts left out"


def test_fixes_combine_and_apply_in_one_place() -> None:
    fixes = CategoryFixes(merge={"Dem": "Democratic"}).combined(CategoryFixes(trim_spaces=True, leave_out=["Other"]))
    assert fixes == CategoryFixes(True, {"Dem": "Democratic"}, ["Other"])
    frame = pd.DataFrame({"text": list("abcde"), "label": ["Dem", " Democratic ", "Other", None, "Republican"]})
    coded = apply_mapping(frame, MAPPING, fixes)
    assert coded.frame["category"].tolist() == ["Democratic", "Democratic", None, None, "Republican"]
    assert coded.left_out.tolist() == [False, False, True, False, False]
    assert "“Dem” merged into “Democratic”" in fixes.summary()


# --------------------------------------------------------------------------- the run and the study file


def test_the_study_file_records_the_fixes_and_the_run_trains_on_fixed_categories(tmp_path) -> None:
    frame = statements({"Democratic ": 2, "Other": 2})
    fixes = CategoryFixes(trim_spaces=True, leave_out=["Other"])
    spec = ExperimentSpec(data=DataSpec(mapping=MAPPING, category_fixes=fixes))
    path = tmp_path / "study.toml"
    spec.data.source = "texts.csv"
    frame.to_csv(tmp_path / "texts.csv", index=False)
    spec.save(path)
    text = path.read_text(encoding="utf-8")
    assert "[data.category_fixes]" in text and "trim_spaces = true" in text
    loaded = ExperimentSpec.load(path)
    assert loaded.data.category_fixes == fixes
    data = load_study_data(loaded, path)
    assert data.categories == ["Democratic", "Republican"]
    assert len(data.texts) == 82
    assert any("leaves out (“Other”)" in note for note in data.notes)
    # the file on disk is never changed
    assert pd.read_csv(tmp_path / "texts.csv")["label"].tolist() == frame["label"].tolist()


def test_the_result_records_the_fixes_and_the_appendix_names_them(tmp_path) -> None:
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.export.appendix_data import build_appendix
    from guiapp.core.study.sections import EvaluationSpec, ModelSpec

    frame = statements({"Democratic ": 2})
    spec = ExperimentSpec(
        data=DataSpec(mapping=MAPPING, category_fixes=CategoryFixes(merge={"Democratic ": "Democratic"})),
        evaluation=EvaluationSpec(folds=2, bootstrap_samples=0),
        models=[ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})],
    )
    result = run_experiment(spec, table=frame)
    assert result.categories == ["Democratic", "Republican"]
    assert result.spec["data"]["category_fixes"]["merge"] == {"Democratic ": "Democratic"}
    appendix = build_appendix(result)
    assert appendix["data"]["category_fixes"]["summary"] == "“Democratic␣” merged into “Democratic”"


def test_a_spec_without_fixes_reads_and_writes_as_before() -> None:
    assert "category_fixes" not in ExperimentSpec().to_dict()["data"]
    with pytest.raises(Exception, match="category_fixes"):
        ExperimentSpec.from_dict({"data": {"category_fixes": {"trim": True}}})


# --------------------------------------------------------------------------- duplicates: one definition


def test_duplicates_are_counted_once_as_extra_copies_in_every_place() -> None:
    frame = statements()
    frame.loc[1, "text"] = frame.loc[0, "text"]  # the same text three times, once with other spaces and capitals
    frame.loc[2, "text"] = "  " + frame.loc[0, "text"].upper().replace(" ", "   ")
    frame.loc[3, "text"] = frame.loc[50, "text"]  # coded Republican here, Democratic there
    report = health(frame)
    assert report.n_repeated_texts == 3  # 2 extra copies of the first text + 1 of the second
    assert issue(report, "duplicate_texts").title == "3 rows repeat the text of another row"
    assert len(report.duplicate_groups) == 2
    assert issue(report, "conflicting_duplicates").title == "1 text is coded with different categories in different rows"
