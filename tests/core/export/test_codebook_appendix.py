"""The methods appendix describes a language model with your codebook: the model and its weights'
hash (or the server's digest), the prompt and its hash, k, seed, temperature, the date, how answers
became probabilities, where the examples came from, the prompt sensitivity, that its labels were
validated and never used as truth, that the texts left the computer where they did — with the works
it cites listed under References."""

from __future__ import annotations

import json

import pytest

from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.export.appendix import write_appendix
from guiapp.core.export.appendix_data import build_appendix
from guiapp.core.export.appendix_html import render_appendix_html
from guiapp.core.export.appendix_references import references
from guiapp.core.export.appendix_text import appendix_paragraph
from tests.core.experiment.run.test_runner import QUICK, study
from tests.core.export.codebook_result_sample import DIGEST, PROMPT_SHA, WEIGHTS, with_codebook_model
from tests.core.synthetic_texts import coded_texts


@pytest.fixture(scope="module")
def quick_result():
    return run_experiment(study(QUICK, combine=False), table=coded_texts(150), n_jobs=1)


def test_the_appendix_records_the_language_model_the_prompt_and_its_sensitivity(quick_result):
    result = with_codebook_model(quick_result)
    result.finished_at = "2026-12-07T23:00:00+00:00"
    appendix = build_appendix(result)
    model = next(m for m in appendix["models"] if m["representation"] == "codebook_llm")
    facts = model["codebook"]
    assert facts["weights_sha256"] == WEIGHTS and facts["prompt_sha256"] == PROMPT_SHA
    assert (facts["k"], facts["seed"]) == (2, 5) and "{text}" in facts["prompt_templates"][0]
    assert facts["sensitivity"]["alpha"] == 0.74 and facts["texts_left_computer"] is False
    assert model["chosen_text"] == "2 examples per category, TextLab's instruction"
    assert model["classifier_label"] == "In TextLab" and model["grid_labels"]["k"] == "Examples per category"
    prose = appendix_paragraph(appendix)
    for words in ("Codebook language model (Qwen2.5-0.5B-Instruct) coded the texts with a generative language model",
                  WEIGHTS, PROMPT_SHA, "transformers 5.25.0", "two coded examples per category, drawn with seed 5",
                  "only from the training texts of the fold being scored", "length", "softmax over the categories",
                  "on 7 December 2026", "Krippendorff's α between the answers of the three wordings was 0.74",
                  "ranged from 0.55 to 0.61", "never used as the true categories",
                  "2 examples per category, TextLab's instruction"):
        assert words in prose, words
    assert "left the computer" not in prose and "transformers" in prose
    cited = {work["key"] for work in references(prose)}
    assert {"Gilardi et al., 2023", "Ziems et al., 2024", "Törnberg, 2024", "Halterman & Keith, 2025",
            "Egami et al., 2023", "Baumann et al., 2025"} <= cited
    page = render_appendix_html(appendix)
    assert "Codebook LLMs: Evaluating LLMs as measurement tools for political science concepts" in page
    assert "ChatGPT outperforms crowd workers for text-annotation tasks" in page and "<pre" in page
    assert "transform computational social science? <i>Computational Linguistics</i>" in page
    assert "Prompt template" in page  # the full template is on the page
    assert "Categories:" in page and "{text}" in page


def test_a_server_elsewhere_is_named_with_its_digest_temperature_and_the_texts_leaving(quick_result, tmp_path):
    result = with_codebook_model(quick_result, server=True, leaves=True, outside=4)
    prose = appendix_paragraph(build_appendix(result))
    assert "llama3.2" in prose and DIGEST in prose and "Q4_K_M" in prose and "Ollama at http://192.168.1.20:11434" in prose
    assert "at temperature 0" in prose and "five answers per question" in prose
    assert "left the computer on which the analysis was run" in prose
    assert "4 of the server's 120 answers named none of the categories" in prose
    html_file, json_file = write_appendix(result, tmp_path / "appendix.html")
    saved = json.loads(json_file.read_text(encoding="utf-8"))
    facts = next(m for m in saved["models"] if m["representation"] == "codebook_llm")["codebook"]
    assert facts["texts_left_computer"] is True and facts["server_model_digest"] == DIGEST
    assert "Texts left this computer" in html_file.read_text(encoding="utf-8")


def test_without_a_sensitivity_report_or_a_codebook_model_nothing_is_invented(quick_result):
    prose = appendix_paragraph(build_appendix(with_codebook_model(quick_result, with_sensitivity=False)))
    assert "prompt sensitivity" not in prose and "never used as the true categories" in prose
    plain = appendix_paragraph(build_appendix(quick_result))
    assert "language model" not in plain and "Gilardi" not in plain


def test_several_categories_per_text_are_scored_as_answers_to_yes_or_no(quick_result):
    from guiapp.core.export.appendix_codebook import codebook_sentences

    model = next(m for m in build_appendix(with_codebook_model(quick_result))["models"]
                 if m["representation"] == "codebook_llm")
    single = codebook_sentences([model], {})
    model["codebook"]["multi_label"] = True
    several = codebook_sentences([model], {})
    assert "softmax over the categories" in single and "softmax over the categories" not in several
    assert "Each answer was scored as the continuation of the prompt" in several
