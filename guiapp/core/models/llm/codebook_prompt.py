"""The prompt that a language model codes a text with, built from the researcher's codebook.

A :class:`CodebookPrompt` holds an editable instruction (a default written for a social scientist's
coding task, with two paraphrases for the prompt-sensitivity report), the categories with their
definitions and codebook examples (:class:`PromptCategory`, plain data: this package does not read
the Coding step), the few-shot examples shown to the model (:class:`FewShotExample`, drawn by
:mod:`.prompt_examples` from the training texts only) and whether a text takes one category or
several. It renders

* chat messages (a list of ``{"role", "content"}`` dicts) for language-model servers and chat
  templates, and
* one plain prompt that ends just before the answer, for scoring each category's name (or "yes"
  and "no") as its continuation.

With one category per text the model is asked to name the category; with several categories per
text it is asked one yes/no question per category. :meth:`CodebookPrompt.template_sha256` is the
hash of the exact prompt without the text, for the record; :meth:`CodebookPrompt.sample` is what
the researcher reads before running.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from guiapp.core.errors import UserError
from guiapp.core.models.zero_shot.descriptions import (
    MAX_TEXT,
    check_categories,
    check_descriptions,
    check_examples,
)

DEFAULT_INSTRUCTION = (
    "You are helping a social scientist code texts with a codebook. Read the codebook's categories "
    "and their definitions, then decide which category the text belongs to, following the "
    "definitions closely rather than your own sense of the words.")
INSTRUCTION_PARAPHRASES = (
    "A researcher is sorting texts into the categories of a codebook. Use the definition of each "
    "category below, and only those definitions, to judge where the text belongs.",
    "Act as a careful human coder. The codebook below defines the categories; apply these "
    "definitions to the text exactly as written.",
)
INSTRUCTIONS = (DEFAULT_INSTRUCTION, *INSTRUCTION_PARAPHRASES)

YES = "yes"
NO = "no"
CATEGORY_KEY = "category"  # the JSON answer's key with one category per text
ANSWER_KEY = "answer"  # the JSON answer's key for a yes/no question
TEXT_SLOT = "{text}"  # stands for the text in the recorded template
MAX_FEW_SHOT = 1_000

ONE_CATEGORY_FORMAT = ("Answer with the name of exactly one category, written as in the codebook, "
                       "and nothing else.")
YES_NO_FORMAT = ("A text may belong to several categories. You will be asked about one category: "
                 f"answer {YES} if the text belongs to it and {NO} if it does not, and nothing else.")


@dataclass(frozen=True)
class PromptCategory:
    """One codebook entry: the category's name, its definition (may be empty) and example texts."""

    name: str
    definition: str = ""
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class FewShotExample:
    """A coded training text shown to the model with its answer; ``position`` is its row in the
    study's texts (None where unknown), so that it can be checked against the texts scored."""

    text: str
    categories: tuple[str, ...]
    position: int | None = None


@dataclass(frozen=True)
class CodebookPrompt:
    """The checked prompt; build it with :meth:`build`."""

    categories: tuple[PromptCategory, ...]
    instruction: str = DEFAULT_INSTRUCTION
    examples: tuple[FewShotExample, ...] = ()
    multi_label: bool = False
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(category.name for category in self.categories))

    @classmethod
    def build(cls, categories: Sequence[PromptCategory | tuple | str], instruction: str | None = None,
              examples: Sequence[FewShotExample] = (), multi_label: bool = False) -> CodebookPrompt:
        """A prompt from the codebook's entries (a :class:`PromptCategory`, a (name, definition,
        examples) record, or a bare name), checked with messages in plain words."""
        entries = [_entry(item) for item in _sequence(categories, "The categories")]
        names = check_categories([entry.name for entry in entries], multi_label)
        _check_distinct_answers(names)
        definitions = check_descriptions({e.name: e.definition for e in entries}, names)
        codebook_examples = check_examples({e.name: list(e.examples) for e in entries}, names)
        checked = tuple(PromptCategory(name, definitions.get(name, ""), tuple(codebook_examples.get(name, ())))
                        for name in names)
        return cls(checked, check_instruction(DEFAULT_INSTRUCTION if instruction is None else instruction),
                   _check_few_shot(examples, names, multi_label), bool(multi_label))

    def with_instruction(self, instruction: str) -> CodebookPrompt:
        return replace(self, instruction=check_instruction(instruction))

    def with_examples(self, examples: Sequence[FewShotExample]) -> CodebookPrompt:
        return replace(self, examples=_check_few_shot(examples, list(self.names), self.multi_label))

    def sensitivity_variants(self, count: int = 3) -> list[CodebookPrompt]:
        """This prompt and up to ``count - 1`` others that differ only in a paraphrased instruction,
        for the prompt-sensitivity report."""
        others = [text for text in INSTRUCTIONS if text.strip() != self.instruction.strip()]
        return [self] + [self.with_instruction(text) for text in others[:max(0, count - 1)]]

    # --- what the model reads -------------------------------------------------------------------

    def questions(self) -> list[str | None]:
        """The questions asked per text: one (None) with one category per text, else each category."""
        return list(self.names) if self.multi_label else [None]

    def answers(self, category: str | None = None) -> list[str]:
        """The answers the model may give: the category names, or yes and no."""
        self._check_question(category)
        return [YES, NO] if self.multi_label else list(self.names)

    def system_text(self) -> str:
        """The instruction, the codebook and how to answer: the same for every text."""
        parts = [self.instruction.strip(), "Categories:"]
        for category in self.categories:
            line = f"- {category.name}"
            if category.definition:
                line += f": {category.definition}"
            parts.append(line)
            for example in category.examples:
                parts.append(f"  Example of {category.name}: {_quoted(example)}")
        parts.append(YES_NO_FORMAT if self.multi_label else ONE_CATEGORY_FORMAT)
        return "\n".join([parts[0], "", *parts[1:-1], "", parts[-1]])

    def messages(self, text: str, category: str | None = None) -> list[dict[str, str]]:
        """The chat messages: the system text, each few-shot example as a user turn answered by
        the assistant, then the text (and, with several categories per text, the question)."""
        text = check_text(text)
        self._check_question(category)
        messages = [{"role": "system", "content": self.system_text()}]
        for example in self.examples:
            messages.append({"role": "user", "content": self._user_text(example.text, category)})
            messages.append({"role": "assistant", "content": self._example_answer(example, category)})
        messages.append({"role": "user", "content": self._user_text(text, category)})
        return messages

    def prompt(self, text: str, category: str | None = None) -> str:
        """One plain prompt that ends just before the answer (after "Category:" or "Answer:");
        each answer is scored as its continuation, see :meth:`continuation`."""
        text = check_text(text)
        self._check_question(category)
        blocks = [self.system_text()]
        for example in self.examples:
            blocks.append(f"{self._user_text(example.text, category)}\n{self._cue()}"
                          f"{self.continuation(self._example_answer(example, category))}")
        blocks.append(f"{self._user_text(text, category)}\n{self._cue()}")
        return "\n\n".join(blocks)

    @staticmethod
    def continuation(answer: str) -> str:
        """How an answer follows the plain prompt (after one space)."""
        return f" {answer}"

    def answer_schema(self, category: str | None = None) -> dict:
        """A JSON schema whose only answer is one of the allowed answers, for servers that support
        structured output."""
        key = ANSWER_KEY if self.multi_label else CATEGORY_KEY
        return {"type": "object", "properties": {key: {"type": "string", "enum": self.answers(category)}},
                "required": [key], "additionalProperties": False}

    # --- for the record and the researcher -------------------------------------------------------

    def template_record(self) -> dict:
        """The exact prompt without the text (``{text}`` in its place), every question's form."""
        questions = self.questions()
        return {"multi_label": self.multi_label,
                "messages": [self.messages(TEXT_SLOT, question) for question in questions],
                "prompts": [self.prompt(TEXT_SLOT, question) for question in questions]}

    def template_sha256(self) -> str:
        """The SHA-256 of :meth:`template_record` (UTF-8 JSON with sorted keys): the same hash means
        the same instruction, codebook, examples and wording."""
        encoded = json.dumps(self.template_record(), sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(encoded).hexdigest()

    def sample(self, text: str) -> str:
        """The messages for ``text`` as the researcher reads them before running."""
        questions = self.questions()
        lines = []
        for message in self.messages(text, questions[0]):
            lines += [f"[{message['role']}]", message["content"], ""]
        if self.multi_label and len(questions) > 1:
            lines.append(f"(The same is asked for each of the {len(questions)} categories, "
                         f"one after another: {', '.join(questions)}.)")
        return "\n".join(lines).rstrip() + "\n"

    # --- inner parts ----------------------------------------------------------------------------

    def _check_question(self, category: str | None) -> None:
        if self.multi_label and category not in self.names:
            raise UserError("With several categories per text, the model is asked about one category at a time.",
                            f"Name one of the categories: {', '.join(self.names)}.")
        if not self.multi_label and category is not None:
            raise UserError("With one category per text, the model is asked to choose among all the categories.",
                            "Ask without naming a category.")

    def _user_text(self, text: str, category: str | None) -> str:
        user = f"Text: {_quoted(text)}"
        if category is not None:
            user += f"\nDoes this text belong to the category “{category}”? Answer {YES} or {NO}."
        return user

    def _cue(self) -> str:
        return "Answer:" if self.multi_label else "Category:"

    def _example_answer(self, example: FewShotExample, category: str | None) -> str:
        if category is None:
            return example.categories[0]
        return YES if category in example.categories else NO


def check_instruction(instruction: str) -> str:
    """The instruction, stripped; a :class:`UserError` when it is empty or far too long."""
    if not isinstance(instruction, str) or not instruction.strip():
        raise UserError("The instruction to the language model is empty.",
                        "Write what the model should do, or use the default instruction.")
    if len(instruction) > MAX_TEXT:
        raise UserError(f"The instruction to the language model is {len(instruction):,} characters long.",
                        f"Keep it under {MAX_TEXT:,} characters; the codebook is added to it.")
    return instruction.strip()


def answer_key(text: str) -> str:
    """``text`` as answers are compared: case, spaces and punctuation left out ("Health." and
    " health" are the same answer; "Health care" and "healthcare" too)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(char for char in folded
                   if not char.isspace() and not unicodedata.category(char).startswith(("P", "S")))


def _check_distinct_answers(names: list[str]) -> None:
    seen: dict[str, str] = {}
    for name in names:
        key = answer_key(name)
        if not key:
            raise UserError(f"The category “{name}” is named with punctuation only.",
                            "Give it a name with letters or digits, so that a model's answer can name it.")
        if key in seen:
            raise UserError(f"The categories “{seen[key]}” and “{name}” differ only in capitals, spaces or "
                            "punctuation, so a language model's answer could not tell them apart.",
                            "Rename one of them.")
        seen[key] = name


def check_text(text: str) -> str:
    if not isinstance(text, str):
        raise UserError("The text to code is not a text.", "Check the text column of the study.")
    return text


def _entry(item: PromptCategory | tuple | str) -> PromptCategory:
    if isinstance(item, PromptCategory):
        return item
    if isinstance(item, str):
        return PromptCategory(item)
    if isinstance(item, Mapping):
        item = (item.get("name"), item.get("definition") or "", item.get("examples") or ())
    if isinstance(item, Sequence) and 1 <= len(item) <= 3:
        name, definition, examples = (*item, "", ())[:3]
        if isinstance(examples, str):
            examples = (examples,)
        if not isinstance(definition, str):
            raise UserError(f"The definition of “{name}” is not a text.", "Define each category in a sentence or two.")
        if not isinstance(examples, Sequence):
            raise UserError(f"The example texts of “{name}” are not a list of texts.")
        return PromptCategory(name, definition, tuple(examples))
    raise UserError("A codebook entry must give a category's name, its definition and its example texts.")


def _sequence(value: object, what: str) -> Sequence:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise UserError(f"{what} must be a list.")
    return value


def _check_few_shot(examples: Sequence[FewShotExample], names: list[str], multi_label: bool) -> tuple[FewShotExample, ...]:
    examples = _sequence(examples, "The examples shown to the language model")
    if len(examples) > MAX_FEW_SHOT:
        raise UserError(f"{len(examples):,} examples would be shown to the language model with every text.",
                        "Choose fewer examples per category.")
    for example in examples:
        if not isinstance(example, FewShotExample) or not isinstance(example.text, str) or not example.text.strip():
            raise UserError("An example shown to the language model has no text.")
        unknown = [name for name in example.categories if name not in names]
        if unknown:
            raise UserError(f"An example shown to the language model is coded “{unknown[0]}”, "
                            "which is not one of the study's categories.")
        if not multi_label and len(example.categories) != 1:
            raise UserError("With one category per text, each example shown to the language model needs "
                            f"exactly one category; one has {len(example.categories)}.")
    return tuple(examples)


def _quoted(text: str) -> str:
    return f"\"{text.strip()}\""
