"""The self-test and a language model with your codebook: no such model is bundled, so the full
self-test checks what can be checked without one (its libraries, its prompt from the example's
categories) and says in its line that the model itself is checked when a study opens it."""

from __future__ import annotations

from guiapp.core import self_test


def test_the_full_self_test_checks_the_codebook_pieces_and_says_what_it_cannot():
    names = [name for name, _, _ in self_test._checks(quick=False)]
    assert "language model with your codebook: libraries and prompt" in names
    assert all("codebook" not in name for name, _, _ in self_test._checks(quick=True))
    detail = self_test.check_codebook_language_model()
    assert "no language model is bundled" in detail and "4 definitions" in detail
    assert all(spec.representation != "codebook_llm" for spec in self_test.family_models())


def test_a_prompt_without_a_definition_fails_the_check(monkeypatch):
    from guiapp.core.models.llm import codebook_prompt

    real = codebook_prompt.CodebookPrompt.prompt
    monkeypatch.setattr(codebook_prompt.CodebookPrompt, "prompt",
                        lambda self, text, category=None: real(self, text, category).replace("Bills about", "Laws on"))
    check = self_test.Check("x", True, 0.0)
    try:
        self_test.check_codebook_language_model()
    except ValueError as error:
        check = self_test.Check("x", False, 0.0, reason=str(error))
    assert not check.ok and "does not hold the definition" in check.reason
