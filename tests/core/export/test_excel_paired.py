"""The Excel export carries the paired comparisons and the agreement with the coding, as the
Results step shows them (one row per pair, Holm-corrected p never below the raw p)."""

from __future__ import annotations

import pandas as pd

from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.export.excel import write_excel
from guiapp.core.export.excel_paired import SHEET
from tests.core.experiment.run.test_runner import QUICK, study
from tests.core.synthetic_texts import coded_texts


def test_the_workbook_has_every_pair_and_each_models_agreement(tmp_path) -> None:
    result = run_experiment(study(QUICK), table=coded_texts(150), n_jobs=1)
    path = write_excel(tmp_path / "results.xlsx", result=result)
    sheet = pd.read_excel(path, sheet_name=SHEET, engine="calamine", header=None)
    header = sheet.index[sheet[0] == "Model A"][0]
    pairs = sheet.iloc[header + 1: header + 1 + 6]  # four models (two and their two combinations): six pairs
    assert pairs[0].notna().all() and pairs[6].str.contains("McNemar").all()
    assert (pairs[5].astype(float) >= pairs[4].astype(float) - 1e-12).all()
    names = {model.name for model in result.models}
    agreement = sheet.index[sheet[0] == "Model"][0]
    assert set(sheet.iloc[agreement + 1: agreement + 5, 0]) == names
    assert sheet.iloc[agreement + 1: agreement + 5, 2].astype(float).between(-1, 1).all()  # kappa
