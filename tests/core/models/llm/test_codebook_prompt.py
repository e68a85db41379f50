"""The prompt built from the codebook: what it holds, its two renderings, its hash and its checks."""

from __future__ import annotations

import pytest

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_prompt import (
    DEFAULT_INSTRUCTION,
    INSTRUCTIONS,
    NO,
    TEXT_SLOT,
    YES,
    CodebookPrompt,
    FewShotExample,
    PromptCategory,
    answer_key,
)

CODEBOOK = [
    PromptCategory("Economy", "Jobs, prices, wages and trade.", ("Inflation rose again.", "Factories closed.")),
    PromptCategory("Health", "Illness, hospitals and care.", ("The clinic opened late.",)),
    PromptCategory("Other", "Anything else."),
]


def test_every_definition_and_codebook_example_is_in_both_renderings():
    prompt = CodebookPrompt.build(CODEBOOK)
    chat = "\n".join(message["content"] for message in prompt.messages("Wages fell."))
    plain = prompt.prompt("Wages fell.")
    for rendered in (chat, plain):
        for category in CODEBOOK:
            assert category.name in rendered
            assert category.definition in rendered
            for example in category.examples:
                assert example in rendered
        assert DEFAULT_INSTRUCTION in rendered
        assert "Wages fell." in rendered


def test_plain_prompt_ends_just_before_the_answer_and_examples_carry_theirs():
    examples = [FewShotExample("Doctors went on strike.", ("Health",), 4)]
    prompt = CodebookPrompt.build(CODEBOOK, examples=examples)
    plain = prompt.prompt("Wages fell.")
    assert plain.endswith('Text: "Wages fell."\nCategory:')
    assert 'Text: "Doctors went on strike."\nCategory: Health' in plain
    assert prompt.continuation("Health") == " Health"


def test_chat_messages_put_examples_as_turns_and_the_text_last():
    prompt = CodebookPrompt.build(CODEBOOK, examples=[FewShotExample("Doctors went on strike.", ("Health",))])
    messages = prompt.messages("Wages fell.")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "Health"
    assert "Wages fell." in messages[-1]["content"]
    assert "Wages fell." not in messages[0]["content"]


def test_several_categories_per_text_ask_yes_or_no_for_one_category():
    examples = [FewShotExample("Hospital jobs cut.", ("Economy", "Health"))]
    prompt = CodebookPrompt.build(CODEBOOK, examples=examples, multi_label=True)
    assert prompt.questions() == ["Economy", "Health", "Other"]
    assert prompt.answers("Health") == [YES, NO]
    plain = prompt.prompt("Wages fell.", "Health")
    assert "“Health”" in plain and plain.endswith("Answer:")
    assert f"Answer: {YES}" in plain  # the example is coded Health
    assert f"Answer: {NO}" in prompt.prompt("Wages fell.", "Other")
    with pytest.raises(UserError):
        prompt.prompt("Wages fell.")  # which category is asked about?
    with pytest.raises(UserError):
        CodebookPrompt.build(CODEBOOK).prompt("Wages fell.", "Health")


def test_the_hash_follows_the_template_not_the_text():
    prompt = CodebookPrompt.build(CODEBOOK)
    same = CodebookPrompt.build(list(CODEBOOK))
    assert prompt.template_sha256() == same.template_sha256()
    assert len(prompt.template_sha256()) == 64
    assert TEXT_SLOT in prompt.template_record()["prompts"][0]
    changed = [PromptCategory("Economy", "Jobs and prices."), *CODEBOOK[1:]]
    hashes = {prompt.template_sha256(), CodebookPrompt.build(changed).template_sha256(),
              prompt.with_instruction("Code the text.").template_sha256(),
              prompt.with_examples([FewShotExample("Doctors.", ("Health",))]).template_sha256(),
              CodebookPrompt.build(CODEBOOK, multi_label=True).template_sha256()}
    assert len(hashes) == 5


def test_the_sample_shows_the_exact_messages():
    prompt = CodebookPrompt.build(CODEBOOK, multi_label=True)
    sample = prompt.sample("Wages fell.")
    assert prompt.messages("Wages fell.", "Economy")[0]["content"] in sample
    assert "Wages fell." in sample and "each of the 3 categories" in sample


def test_sensitivity_variants_differ_only_in_the_instruction():
    prompt = CodebookPrompt.build(CODEBOOK)
    variants = prompt.sensitivity_variants()
    assert [v.instruction for v in variants] == list(INSTRUCTIONS)
    assert len({v.template_sha256() for v in variants}) == 3
    assert all(v.categories == prompt.categories for v in variants)
    own = prompt.with_instruction("Code the text by the codebook.").sensitivity_variants()
    assert own[0].instruction == "Code the text by the codebook." and len(own) == 3


def test_answer_schema_allows_only_the_categories():
    schema = CodebookPrompt.build(CODEBOOK).answer_schema()
    assert schema["properties"]["category"]["enum"] == ["Economy", "Health", "Other"]
    assert CodebookPrompt.build(CODEBOOK, multi_label=True).answer_schema("Other")["properties"]["answer"]["enum"] == [YES, NO]


def test_records_and_bare_names_are_accepted():
    prompt = CodebookPrompt.build([("Economy", "Jobs.", ["Wages rose."]), "Health",
                                   {"name": "Other", "definition": "Else."}])
    assert prompt.categories[0] == PromptCategory("Economy", "Jobs.", ("Wages rose.",))
    assert prompt.categories[1] == PromptCategory("Health")
    assert prompt.categories[2].definition == "Else."


@pytest.mark.parametrize("categories, words", [
    (["Economy"], "at least 2"),
    (["Economy", "Economy"], "named twice"),
    (["Economy", "economy."], "differ only"),
    (["Economy", "?!"], "punctuation only"),
    (["Economy", ""], "needs a name"),
    ("Economy", "must be a list"),
])
def test_bad_categories_are_refused_in_plain_words(categories, words):
    with pytest.raises(UserError, match=words):
        CodebookPrompt.build(categories)


def test_bad_instructions_texts_and_examples_are_refused():
    with pytest.raises(UserError, match="instruction"):
        CodebookPrompt.build(CODEBOOK, instruction="  ")
    with pytest.raises(UserError, match="not one of the study's categories"):
        CodebookPrompt.build(CODEBOOK, examples=[FewShotExample("A text.", ("Sport",))])
    with pytest.raises(UserError, match="exactly one category"):
        CodebookPrompt.build(CODEBOOK, examples=[FewShotExample("A text.", ("Economy", "Health"))])
    with pytest.raises(UserError, match="no text"):
        CodebookPrompt.build(CODEBOOK, examples=[FewShotExample(" ", ("Economy",))])
    with pytest.raises(UserError, match="not a text"):
        CodebookPrompt.build(CODEBOOK).prompt(None)  # type: ignore[arg-type]


def test_answer_key_ignores_case_spaces_and_punctuation():
    assert answer_key(" Health care. ") == answer_key("healthcare") == "healthcare"
    assert answer_key("Économie") != answer_key("Economie")
