"""The Excel workbook names a language model with your codebook by its family and where it ran, puts its
prompt sensitivity beside its score, and its record — model, weights' hash or server digest, runtime,
prompt and hash, k, seed, temperature, sensitivity, whether the texts left the computer — on the
Settings sheet; read back with openpyxl."""

from __future__ import annotations

import openpyxl
import pytest

from guiapp.core.export.excel import write_excel
from guiapp.core.export.flat_files import COMPARISON_CSV, results_frames
from tests.core.export.codebook_result_sample import DIGEST, PROMPT_SHA, WEIGHTS, codebook_model, with_codebook_model
from tests.ui.sample_results import sample_result


@pytest.fixture(scope="module")
def base():
    return sample_result()


def _settings(path) -> dict[str, list]:
    """The Settings sheet's values by label (a label can appear once per model)."""
    found: dict[str, list] = {}
    for label, value in openpyxl.load_workbook(path)["Settings"].iter_rows(min_row=2, values_only=True):
        if label:
            found.setdefault(str(label), []).append(value)
    return found


def test_the_comparison_names_the_family_and_shows_the_prompt_sensitivity(tmp_path, base):
    result = with_codebook_model(base)
    result.models.append(codebook_model(result, server=True, leaves=True, with_sensitivity=False))
    result.models[-1].name = "Codebook language model (llama3.2 on a server)"
    path = write_excel(tmp_path / "out.xlsx", result=result)
    rows = list(openpyxl.load_workbook(path)["Model comparison"].iter_rows(values_only=True))
    header = rows[0]
    by_name = {row[0]: dict(zip(header, row, strict=False)) for row in rows[1:len(result.models) + 1]}
    here = by_name["Codebook language model (Qwen2.5-0.5B-Instruct)"]
    assert here["Representation"] == "Language model with your codebook" and here["Classifier"] == "In TextLab"
    alpha = "Prompt sensitivity: Krippendorff's α between the instruction's wordings"
    assert here[alpha] == pytest.approx(0.74) and here["Prompt sensitivity: macro-F1 lowest"] == pytest.approx(0.55)
    assert "depend somewhat on how the instruction is worded" in here["Prompt sensitivity in words"]
    server = by_name["Codebook language model (llama3.2 on a server)"]
    assert server["Classifier"] == "On a language-model server" and server[alpha] is None
    assert by_name[base.models[0].name][alpha] is None  # other models have no prompt
    frame = results_frames(result)[COMPARISON_CSV]
    assert alpha in frame.columns and frame[alpha].notna().sum() == 1


def test_the_settings_sheet_holds_the_record(tmp_path, base):
    result = with_codebook_model(base)
    result.models.append(codebook_model(result, server=True, leaves=True, outside=4))
    settings = _settings(write_excel(tmp_path / "out.xlsx", result=result))
    assert settings["Language model"] == ["Qwen2.5-0.5B-Instruct", "llama3.2"]
    assert settings["Weights' SHA-256"] == [WEIGHTS] and settings["Server's model digest"] == [DIGEST]
    assert settings["Runtime"] == ["transformers 5.25.0", "Ollama"]
    assert settings["Prompt's SHA-256"] == [PROMPT_SHA, PROMPT_SHA]
    assert all("{text}" in prompt and "Categories:" in prompt for prompt in settings["Prompt template"])
    assert settings["Examples per category (k)"] == [2, 2] and settings["Seed of the examples"] == [5, 5]
    assert settings["Temperature"] == [0] and settings["Server address"] == ["http://192.168.1.20:11434"]
    assert "2 examples per category, TextLab's instruction" in settings["Chosen setting"]
    assert settings["Prompt sensitivity: α between the wordings"] == [0.74, 0.74]
    left = settings["Texts left this computer"]
    assert left[0] == "no" and left[1].startswith("yes: The texts left this computer")
    assert settings["Answers outside the categories"][0].startswith("4 of 120")
    assert "Wording 2: TextLab's instruction, wording 2 (macro-F1)" in settings
