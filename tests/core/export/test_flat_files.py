"""CSV and Parquet export of the predictions table: round trip with pandas, no overwrite, cancel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Progress
from guiapp.core.export.flat_files import write_csv, write_parquet
from guiapp.core.export.predictions import ModelPredictions, predictions_table
from tests.core.export.export_samples import CATEGORIES, new_texts, two_models


def test_predictions_table_puts_model_blocks_beside_the_users_columns():
    table = new_texts(10)
    frame = predictions_table(table, two_models(10))
    assert list(frame.columns[:6]) == list(table.columns)
    assert frame.columns[6] == "SVM · Basic BOW: predicted category"
    assert frame.shape == (10, 6 + 5 + 4)
    assert frame["SVM · Basic BOW: probability Health"].dtype == np.float32
    assert list(frame.index) == list(table.index)  # each text keeps its place in the table (its row)


def test_clashing_names_are_made_unique():
    table = pd.DataFrame({"M: predicted category": [1, 2]})
    probabilities = np.full((2, 2), 0.5, np.float32)
    models = [ModelPredictions("M", ["a", "b"], np.array([0, 1]), probabilities)] * 2
    frame = predictions_table(table, models)
    assert list(frame.columns) == [
        "M: predicted category", "M: predicted category (2)", "M: probability a", "M: probability b",
        "M (2): predicted category", "M (2): probability a", "M (2): probability b",
    ]


def test_wrong_shapes_are_refused():
    with pytest.raises(ValueError, match="shape"):
        ModelPredictions("M", CATEGORIES, np.zeros(3, int), np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="rows"):
        predictions_table(new_texts(4), two_models(3))


def test_csv_round_trip_with_bom(tmp_path):
    table, models = new_texts(50), two_models(50)
    events = []
    path = write_csv(tmp_path / "p.csv", table, models, on_event=events.append, chunk_rows=16)
    assert path.read_bytes().startswith(b"\xef\xbb\xbfID,Text,")
    back = pd.read_csv(path, encoding="utf-8-sig")
    expected = predictions_table(table, models)
    assert list(back.columns) == list(expected.columns)
    assert back["Text"].tolist() == table["Text"].tolist()
    assert back["SVM · Basic BOW: predicted category"].tolist() == expected["SVM · Basic BOW: predicted category"].tolist()
    np.testing.assert_allclose(back["SVM · Basic BOW: probability Economy"], models[0].probabilities[:, 0], atol=1e-7)
    assert back["SVM · Basic BOW: top words"][3] == "tax (+0.31), cut (+0.22)"
    assert [e.done for e in events if isinstance(e, Progress)] == [16, 32, 48, 50]


def test_parquet_round_trip(tmp_path):
    table, models = new_texts(30), two_models(30)
    events = []
    path = write_parquet(tmp_path / "p.parquet", table, models, on_event=events.append, row_group=8)
    back = pd.read_parquet(path)
    expected = predictions_table(table, models)
    expected["Mixed"] = expected["Mixed"].map(lambda v: v if pd.isna(v) else str(v))
    assert list(back.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(back.drop(columns="Mixed"), expected.drop(columns="Mixed").reset_index(drop=True))
    assert back["Mixed"].tolist()[:2] == ["1", "a"] and pd.isna(back["Mixed"][2])
    assert any(isinstance(e, Log) and "Mixed" in e.message for e in events)


@pytest.mark.parametrize("writer", [write_csv, write_parquet])
def test_no_overwrite_and_cancel_leave_files_alone(tmp_path, writer):
    table, models = new_texts(40), two_models(40)
    target = tmp_path / "out.data"
    target.write_text("old")
    with pytest.raises(UserError, match="already exists"):
        writer(target, table, models)
    assert target.read_text() == "old"

    def cancel(event):
        if isinstance(event, Progress) and event.done:
            raise Cancelled

    size = {"chunk_rows": 10} if writer is write_csv else {"row_group": 10}
    with pytest.raises(Cancelled):
        writer(target, table, models, overwrite=True, on_event=cancel, **size)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.data"]
    writer(target, table, models, overwrite=True)
    assert target.stat().st_size > 100


def test_refuses_the_users_input_file(tmp_path):
    source = tmp_path / "texts.csv"
    source.write_text("Text\nhello\n")
    with pytest.raises(UserError, match="never changes it"):
        write_csv(source, pd.DataFrame({"Text": ["hello"]}), overwrite=True, protected=[source])
    assert source.read_text() == "Text\nhello\n"


def test_written_files_get_ordinary_permissions(tmp_path):
    """Not the owner-only 0600 of a temporary file: colleagues on a shared drive can open it."""
    import os
    import stat

    import pandas as pd

    from guiapp.core.atomic import write_text_atomic
    from guiapp.core.export.flat_files import write_csv

    if os.name != "posix":
        pytest.skip("POSIX permissions")
    mask = os.umask(0)
    os.umask(mask)
    write_csv(tmp_path / "p.csv", pd.DataFrame({"text": ["a"]}))
    write_text_atomic(tmp_path / "r.json", "{}")
    for name in ("p.csv", "r.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~mask
