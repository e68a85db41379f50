"""The data-health report: each finding triggered and not triggered, numbers, progress, cancel."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError, UserError
from guiapp.core.events import Cancelled, Log, Progress
from guiapp.core.health import report as health_module
from guiapp.core.health.findings import HealthReport
from guiapp.core.health.lengths import histogram
from guiapp.core.health.report import compute_health
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.rows import spreadsheet_row

WORDS = ["budget", "school", "health", "farm", "rail", "tax", "nurse", "house", "vote", "law", "road", "court"]


def fake_tokens(texts, on_event):
    """Two special tokens plus one per word; "LONG" texts get 600."""
    on_event(Progress(1.0, "counted"))
    return [600 if "LONG" in t else len(t.split()) + 2 for t in texts], "fake"


def texts(n: int, start: int = 0) -> list[str]:
    """Distinct, multi-word texts."""
    return [f"text number {i} about {WORDS[i % len(WORDS)]} and {WORDS[(i * 7) % len(WORDS)]}"
            for i in range(start, start + n)]


def frame_of(text, label, **more) -> pd.DataFrame:
    return pd.DataFrame({"text": text, "label": label, **more}, dtype="str")


def balanced(n_per: int = 10, labels=("a", "b", "c")) -> pd.DataFrame:
    n = n_per * len(labels)
    return frame_of(texts(n), [labels[i % len(labels)] for i in range(n)])


def check(frame, mapping=None, **kwargs) -> HealthReport:
    mapping = mapping or ColumnMapping(text_columns=["text"], category_column="label")
    kwargs.setdefault("token_counter", fake_tokens)
    return compute_health(frame, mapping, **kwargs)


def issue(report: HealthReport, code: str):
    found = [i for i in report.issues if i.code == code]
    assert len(found) == 1, f"expected one {code!r} issue, got {[i.code for i in report.issues]}"
    return found[0]


def codes(report: HealthReport) -> set[str]:
    return {i.code for i in report.issues}


# --------------------------------------------------------------------------- basics


def test_clean_table_is_ready():
    report = check(balanced())
    assert report.issues == ()
    assert report.verdict == "ready"
    assert (report.n_rows, report.n_coded, report.n_uncoded, report.n_empty_texts) == (30, 30, 0, 0)
    assert [(c.label, c.count, c.share, c.too_small) for c in report.categories] == [
        ("a", 10, 1 / 3, False), ("b", 10, 1 / 3, False), ("c", 10, 1 / 3, False)
    ]
    assert report.duplicate_groups == ()
    assert report.tokenizer_name == "fake"
    json.dumps(report.to_dict())


def test_spreadsheet_row():
    assert spreadsheet_row(0) == 2


def test_no_rows():
    frame = pd.DataFrame({"text": pd.Series([], dtype="str"), "label": pd.Series([], dtype="str")})
    report = check(frame)
    assert [(i.severity, i.code) for i in report.issues] == [("error", "no_rows")]
    assert report.verdict == "not_ready"
    assert report.n_rows == 0 and report.words is None and report.tokens is None


def test_mapping_problems_raise_data_error():
    with pytest.raises(DataError):
        check(balanced(), ColumnMapping(text_columns=["missing"], category_column="label"))


def test_no_category_column():
    report = check(balanced(), ColumnMapping(text_columns=["text"]))
    assert issue(report, "no_category_column").severity == "error"
    assert report.n_coded == 0 and report.categories == ()


def test_no_coded_texts():
    frame = frame_of(texts(5), [None, "", " ", None, None])
    report = check(frame)
    found = issue(report, "no_coded_texts")
    assert found.severity == "error"
    assert "uncoded_rows" not in codes(report)
    assert report.n_coded == 0 and report.n_uncoded == 5


def test_one_category():
    report = check(frame_of(texts(8), ["pro"] * 8))
    found = issue(report, "one_category")
    assert found.severity == "error"
    assert "at least two categories to tell apart" in found.explanation
    assert "“pro”" in found.title


def test_uncoded_rows_info():
    frame = balanced()
    frame.loc[[3, 17], "label"] = None
    frame.loc[20, "label"] = "  "
    report = check(frame)
    found = issue(report, "uncoded_rows")
    assert found.severity == "info"
    assert found.rows == (3, 17, 20) and found.count == 3
    assert found.title == "3 rows have no category"
    assert "will not be used for training" in found.explanation
    assert "let the chosen model code them" in found.explanation
    assert (report.n_coded, report.n_uncoded) == (27, 3)
    assert report.verdict == "ready"


def test_empty_texts_warning():
    frame = balanced()
    frame.loc[4, "text"] = ""
    frame.loc[9, "text"] = " \t "
    frame.loc[11, "text"] = None
    report = check(frame)
    found = issue(report, "empty_texts")
    assert found.severity == "warning"
    assert found.rows == (4, 9, 11) and found.title == "3 texts are empty"
    assert report.n_empty_texts == 3
    assert report.words.n == 27 and report.tokens.n == 27
    assert "all_texts_empty" not in codes(report)


def test_all_texts_empty_error():
    report = check(frame_of(["", None, "  "], ["a", "b", "a"]))
    found = issue(report, "all_texts_empty")
    assert found.severity == "error" and found.count == 3
    assert "empty_texts" not in codes(report)
    assert report.words is None and report.tokens is None


# --------------------------------------------------------------------------- categories


def test_small_categories():
    labels = ["a"] * 10 + ["b"] * 10 + ["c"] * 3 + ["d"] * 1
    frame = frame_of(texts(len(labels)), labels)
    report = check(frame)
    found = issue(report, "small_categories")
    assert found.severity == "error"  # a run would stop: the report says "not ready" too
    assert report.verdict == "not_ready"
    assert found.title == "2 categories have fewer than 5 coded training texts"
    assert found.rows == (20, 21, 22, 23) and found.count == 4
    assert "“c” (3), “d” (1)" in found.explanation
    assert "merge them with a related category, leave them out" in found.fix.lower()
    assert [action.label for action in found.actions] == ["Leave out these 2 categories"]
    small = {c.label: c.too_small for c in report.categories}
    assert small == {"a": False, "b": False, "c": True, "d": True}
    assert [c.label for c in report.categories] == ["a", "b", "c", "d"]

    report3 = check(frame, n_folds=3)
    assert issue(report3, "small_categories").rows == (23,)
    assert report3.n_folds == 3


def test_no_small_categories_when_enough_examples():
    assert "small_categories" not in codes(check(balanced(10)))  # 7 training texts each after the hold-out


def test_rare_categories_info():
    labels = ["a"] * 200 + ["b"] * 200 + ["r"] * 8  # 8 coded, 5 or more training texts after the hold-out
    report = check(frame_of(texts(len(labels)), labels))
    found = issue(report, "rare_categories")
    assert found.severity == "info"
    assert found.count == 8 and found.rows == tuple(range(400, 408))
    assert "oversampling" in found.explanation
    assert "rare_categories" not in codes(check(balanced()))


def test_category_spelling_variants():
    labels = ["Pro"] * 6 + ["pro "] * 2 + ["PRO"] + ["contra"] * 6 + ["Contra"] * 5
    report = check(frame_of(texts(len(labels)), labels))
    found = issue(report, "category_spelling")
    assert found.severity == "warning"
    assert found.title == "2 categories are spelled in more than one way"
    assert "“Pro” (6), “PRO” (1), “pro ” (2)" not in found.explanation  # ordered by count
    assert "“Pro” (6), “pro␣” (2), “PRO” (1)" in found.explanation  # the hidden space shown
    assert "“contra” (6), “Contra” (5)" in found.explanation
    assert found.rows == (6, 7, 8, 15, 16, 17, 18, 19)
    assert "make the spellings identical in your spreadsheet" in found.fix.lower()
    # no silent merging
    assert {c.label for c in report.categories} == {"Pro", "pro ", "PRO", "contra", "Contra"}


def test_category_spelling_inner_whitespace():
    labels = ["pro life"] * 6 + ["pro  life"] * 2 + ["choice"] * 8
    found = issue(check(frame_of(texts(16), labels)), "category_spelling")
    assert found.title == "1 category is spelled in more than one way"
    assert found.rows == (6, 7)


def test_no_spelling_issue_for_distinct_categories():
    assert "category_spelling" not in codes(check(balanced(labels=("pro", "contra", "pro-contra"))))


def test_numeric_categories_info():
    labels = [str(1 + i % 3) for i in range(30)]
    found = issue(check(frame_of(texts(30), labels)), "numeric_categories")
    assert found.severity == "info"
    assert found.title == "Your categories are numbers (1, 2, 3)"
    assert "codes, not measurements" in found.explanation


def test_numeric_categories_sorted_numerically_with_workbook_values():
    frame = pd.DataFrame({"text": texts(40), "label": [float(1 + i % 12) for i in range(40)]})
    found = issue(check(frame), "numeric_categories")
    assert found.title == "Your categories are numbers (1, 2, 3 …)"
    assert found.count == 12


def test_numeric_measurement_warning():
    n = 240
    labels = [str(i % 60) for i in range(n)]  # 60 distinct numbers, each 4 times
    report = check(frame_of(texts(n), labels))
    found = issue(report, "numeric_measurement")
    assert found.severity == "warning"
    assert found.title == "Your categories are 60 different numbers"
    assert "numeric_categories" not in codes(report)

    fractional = [f"{0.5 * (i % 4):.1f}" for i in range(40)]
    assert "numeric_measurement" in codes(check(frame_of(texts(40), fractional)))
    assert "numeric_categories" not in codes(check(balanced()))


def test_date_categories():
    labels = [f"2021-03-0{1 + i % 3}" for i in range(30)]
    found = issue(check(frame_of(texts(30), labels)), "date_categories")
    assert found.severity == "warning"
    assert "2021-03-01" in found.explanation

    workbook = pd.DataFrame({
        "text": texts(30),
        "label": pd.to_datetime([f"2021-03-0{1 + i % 3}" for i in range(30)]),
    })
    report = check(workbook)
    assert "date_categories" in codes(report)
    assert {c.label for c in report.categories} == {"2021-03-01", "2021-03-02", "2021-03-03"}
    assert "date_categories" not in codes(check(balanced()))


def test_too_many_categories():
    labels = [f"free comment {i // 2 if i < 10 else i}" for i in range(40)]  # 35 labels, 40 rows
    report = check(frame_of(texts(40), labels))
    found = issue(report, "too_many_categories")
    assert found.severity == "warning"
    assert "looks like free text, not categories" in found.title
    assert "35 different values" in found.explanation
    # the run refuses categories smaller than the folds, free text or not: so the report is not ready
    assert "small_categories" in codes(report) and report.verdict == "not_ready"
    assert not {"category_spelling", "category_spaces", "rare_categories"} & codes(report)
    assert "too_many_categories" not in codes(check(balanced()))


# --------------------------------------------------------------------------- duplicates


def test_duplicate_texts():
    frame = balanced()
    frame.loc[5, "text"] = frame.loc[2, "text"]  # both "c"
    frame.loc[8, "text"] = "  " + frame.loc[2, "text"] + " "  # same after stripping; "c"
    frame.loc[10, "text"] = frame.loc[1, "text"]  # 1 is "b", 10 is "b"
    frame.loc[12, "text"] = ""
    frame.loc[13, "text"] = ""  # empty texts are not duplicates
    report = check(frame)
    found = issue(report, "duplicate_texts")
    assert found.severity == "warning"
    assert found.title == "3 rows repeat the text of another row"  # the extra copies, as the key figure
    assert report.n_repeated_texts == 3
    assert found.rows == (1, 2, 5, 8, 10)
    assert "conflicting_duplicates" not in codes(report)
    assert [(g.rows, g.categories, g.conflicting) for g in report.duplicate_groups] == [
        ((2, 5, 8), ("c",), False),
        ((1, 10), ("b",), False),
    ]
    assert report.duplicate_groups[0].text_preview == frame.loc[2, "text"]


def test_conflicting_duplicates_first():
    frame = balanced()
    frame.loc[4, "text"] = frame.loc[0, "text"]  # 0 "a", 4 "b"  -> conflict
    frame.loc[7, "text"] = frame.loc[0, "text"]  # 7 "b"
    frame.loc[9, "text"] = frame.loc[3, "text"]  # 3 "a", 9 "a"  -> same category
    frame.loc[11, "text"] = frame.loc[6, "text"]  # 6 "a", 11 "c" but uncoded below -> no conflict
    frame.loc[11, "label"] = None
    report = check(frame)
    conflict = issue(report, "conflicting_duplicates")
    assert conflict.severity == "warning"
    assert conflict.title == "1 text is coded with different categories in different rows"
    assert conflict.rows == (0, 4, 7)
    plain = issue(report, "duplicate_texts")
    assert plain.rows == (0, 3, 4, 6, 7, 9, 11) and plain.title == "4 rows repeat the text of another row"
    groups = report.duplicate_groups
    assert groups[0].conflicting and groups[0].rows == (0, 4, 7)
    assert groups[0].categories == ("a", "b")
    assert [g.conflicting for g in groups] == [True, False, False]
    assert groups[2].categories == ("a",)  # uncoded row 11 adds no category
    # the issue order: warnings keep conflicting first
    order = [i.code for i in report.issues]
    assert order.index("conflicting_duplicates") < order.index("duplicate_texts")


def test_no_duplicates():
    report = check(balanced())
    assert not codes(report) & {"duplicate_texts", "conflicting_duplicates"}


# --------------------------------------------------------------------------- lengths


def test_word_length_stats():
    frame = frame_of(["one", "one two", "one two three", "a b c d", ""], ["a", "b", "a", "b", "a"])
    report = check(frame, n_folds=2)
    words = report.words
    assert words.unit == "words" and words.n == 4
    assert (words.mean, words.median, words.max) == (2.5, 2.5, 4)
    assert sum(words.histogram_counts) == 4
    assert len(words.histogram_edges) == len(words.histogram_counts) + 1
    assert words.limit is None and words.sampled is False
    tokens = report.tokens
    assert tokens.unit == "tokens" and tokens.limit == 512
    assert tokens.max == 6 and tokens.n_over_limit == 0 and tokens.share_over_limit == 0.0


def test_histogram_edges_are_round_and_reach_the_limit():
    edges, counts = histogram(np.array([3, 10, 40, 100]), "tokens", 512)
    assert 512.0 in edges and edges[0] == 0.0 and edges[-1] > 512
    assert sum(counts) == 4 and len(edges) <= 38
    widths = set(np.diff(edges))
    assert len(widths) == 1 and 512 % widths.pop() == 0

    values = np.r_[np.arange(1, 200), [5000]]  # one very long text
    edges, counts = histogram(values, "words")
    assert sum(counts) == 200
    assert edges[-1] == 5001.0 and counts[-1] == 1  # the wider last bin holds the outlier
    assert len(counts) <= 31
    assert len(set(np.diff(edges[:-1]))) == 1


def test_long_texts():
    frame = balanced()
    frame.loc[[2, 7], "text"] = "a LONG text"
    report = check(frame)
    found = issue(report, "long_texts")
    assert found.severity == "info"
    assert found.rows == (2, 7) and found.count == 2
    assert found.title == "2 texts are longer than 512 tokens"
    assert "first 512" in found.explanation and "beginning and the end" in found.explanation
    assert report.tokens.n_over_limit == 2
    assert report.tokens.share_over_limit == pytest.approx(2 / 30)
    assert "long_texts" not in codes(check(balanced()))


def test_long_texts_warning_when_many():
    frame = balanced()
    frame.loc[:10, "text"] = "LONG"
    assert issue(check(frame), "long_texts").severity == "warning"


def test_short_texts_info():
    frame = frame_of(["yes"] * 5 + ["no way"] * 5 + texts(20), ["a", "b"] * 15)
    report = check(frame)
    found = issue(report, "short_texts")
    assert found.severity == "info"
    assert found.title == "33% of the texts have only one or two words"
    assert found.rows == tuple(range(10))
    assert "short_texts" not in codes(check(balanced()))


def test_token_sample_for_large_tables():
    n = 25_000
    seen = {}

    def counter(texts_, on_event):
        seen["n"] = len(texts_)
        return [4] * len(texts_), "fake"

    frame = frame_of(texts(n), ["a", "b"] * (n // 2))
    report = check(frame, token_counter=counter)
    assert seen["n"] == 20_000
    assert report.tokens.sampled and report.tokens.n == 20_000
    assert report.words.n == n and not report.words.sampled


def test_tokenizer_unavailable(monkeypatch):
    def broken(texts_, on_event):
        raise UserError("The default Transformer model is not installed.", "Reinstall TextLab.")

    monkeypatch.setattr(health_module, "count_tokens", broken)
    report = compute_health(balanced(), ColumnMapping(["text"], "label"))
    found = issue(report, "token_lengths_unavailable")
    assert found.severity == "info"
    assert "not installed" in found.explanation and found.fix == "Reinstall TextLab."
    assert report.tokens is None and report.tokenizer_name is None
    assert report.words is not None
    assert report.verdict == "ready"


# --------------------------------------------------------------------------- split and IDs


def split_frame(splits) -> pd.DataFrame:
    frame = balanced()
    frame["split"] = pd.Series(splits, dtype="str")
    return frame


SPLIT_MAPPING = ColumnMapping(["text"], "label", split_column="split")


def test_split_values_error():
    splits = ["train"] * 24 + ["test"] * 3 + ["later", "later", "x"]
    report = check(split_frame(splits), SPLIT_MAPPING)
    found = issue(report, "split_values")
    assert found.severity == "error"
    assert found.rows == (27, 28, 29)
    assert "“later” (2), “x” (1)" in found.explanation


def test_split_missing_and_fine_split():
    splits = ["Train"] * 24 + ["TEST"] * 5 + [None]
    report = check(split_frame(splits), SPLIT_MAPPING)
    assert issue(report, "split_missing").rows == (29,)
    assert not codes(report) & {"split_values", "split_no_test", "split_no_train"}


def test_split_no_train_and_no_test():
    assert issue(check(split_frame(["test"] * 30), SPLIT_MAPPING), "split_no_train").severity == "error"
    assert issue(check(split_frame(["train"] * 30), SPLIT_MAPPING), "split_no_test").severity == "warning"


def test_small_categories_count_training_rows_when_split_given():
    splits = ["test" if i % 10 < 6 else "train" for i in range(30)]  # 4 of each 10 for training
    report = check(split_frame(splits), SPLIT_MAPPING)
    found = issue(report, "small_categories")
    assert found.title == "3 categories have fewer than 5 coded training texts"
    assert all(c.too_small and c.count == 10 for c in report.categories)


def test_test_only_categories():
    frame = balanced()
    frame["split"] = pd.Series(["test" if label == "c" or i < 3 else "train"
                                for i, label in enumerate(frame["label"])], dtype="str")
    found = issue(check(frame, SPLIT_MAPPING), "test_only_categories")
    assert found.severity == "warning" and "“c”" in found.explanation
    assert found.rows == tuple(range(2, 30, 3))


def test_id_issues():
    frame = balanced()
    frame["id"] = pd.Series([str(i) for i in range(30)], dtype="str")
    frame.loc[5, "id"] = "3"
    frame.loc[8, "id"] = None
    report = check(frame, ColumnMapping(["text"], "label", id_column="id"))
    assert issue(report, "duplicate_ids").rows == (3, 5)
    assert issue(report, "missing_ids").rows == (8,)
    frame["id"] = pd.Series([str(i) for i in range(30)], dtype="str")
    assert not codes(check(frame, ColumnMapping(["text"], "label", id_column="id")))


# --------------------------------------------------------------------------- report shape


def test_issues_sorted_errors_warnings_info():
    frame = frame_of(texts(6), ["x", "x", "x", None, "x", "x"])
    frame.loc[1, "text"] = ""
    frame.loc[2, "text"] = frame.loc[0, "text"]
    report = check(frame)
    severities = [i.severity for i in report.issues]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert {"one_category", "empty_texts", "duplicate_texts", "uncoded_rows"} <= codes(report)
    assert report.verdict == "not_ready"


def test_rows_are_capped_but_counted():
    n = 12_100
    frame = frame_of(texts(n), [None] * 12_000 + ["a", "b"] * 50)
    found = issue(check(frame), "uncoded_rows")
    assert found.count == 12_000 and len(found.rows) == 10_000
    assert found.rows[:3] == (0, 1, 2)


def test_progress_and_cancel():
    events = []
    check(balanced(), on_event=events.append)
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)
    assert any(isinstance(e, Log) for e in events)

    def cancel(event):
        if isinstance(event, Progress) and event.fraction and event.fraction > 0.35:
            raise Cancelled

    with pytest.raises(Cancelled):
        check(balanced(), on_event=cancel)


# --------------------------------------------------------------------------- real data and scale


@pytest.mark.shared_data
def test_us_congress_bills(shared_data):
    path = shared_data / "cap_uscongress_bills" / "USCongress.csv.gz"
    if not path.exists():
        pytest.skip("USCongress.csv.gz is not present")
    frame = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False).replace("", pd.NA)
    from guiapp.core.study.mapping import suggest_mapping

    mapping = suggest_mapping(frame)
    assert (mapping.text_columns, mapping.category_column, mapping.id_column) == (["text"], "major", "ID")
    report = compute_health(frame, mapping)
    assert report.n_rows == 4449 and report.n_coded == 4449
    assert len(report.categories) == 20
    assert (report.categories[0].label, report.categories[0].count) == ("3", 617)
    assert [(c.label, c.count) for c in report.categories[1:4]] == [("21", 472), ("18", 402), ("20", 380)]
    assert report.tokenizer_name == "all-MiniLM-L6-v2"
    assert report.tokens.n == 4449 and not report.tokens.sampled
    assert report.tokens.n_over_limit == 0
    assert issue(report, "numeric_categories").severity == "info"
    assert report.verdict in ("ready", "warnings")
    assert "error" not in {i.severity for i in report.issues}


def million_rows() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 1_000_000
    base = np.array([" ".join(rng.choice(WORDS, k)) for k in rng.integers(1, 25, size=200_000)], dtype=object)
    labels = np.array(["pro", "contra", "neutral", None], dtype=object)
    return pd.DataFrame({
        "text": pd.Series(base[rng.integers(0, len(base), n)], dtype="str"),
        "label": pd.Series(labels[rng.integers(0, 4, n)], dtype="str"),
    })


@pytest.mark.slow
def test_million_rows_progress_and_cancel():
    frame = million_rows()
    stamps = []

    def record(event):
        stamps.append((time.perf_counter(), event))

    started = time.perf_counter()
    report = check(frame, on_event=record)
    elapsed = time.perf_counter() - started
    assert report.n_rows == 1_000_000 and report.tokens.sampled
    progress = [e for _, e in stamps if isinstance(e, Progress)]
    assert len(progress) >= 12
    gaps = np.diff([started] + [t for t, _ in stamps])
    assert gaps.max() < 10.0, f"no progress for {gaps.max():.2f} s"  # loose: other processes share the CPU

    def cancel(event):
        if isinstance(event, Progress) and event.fraction and event.fraction >= 0.1:
            raise Cancelled

    started = time.perf_counter()
    with pytest.raises(Cancelled):
        check(frame, on_event=cancel)
    assert time.perf_counter() - started < elapsed / 2


def test_repeated_values_is_exact_with_mixed_types_and_gaps():
    from guiapp.core.health.checks import repeated_values

    values = pd.Series(["a", None, 7, "7", "b", "a", None, 7.5, 7], dtype=object)
    assert repeated_values(values, chunk=2).tolist() == [True, False, True, False, False, True, False, False, True]
