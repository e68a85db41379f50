"""A language model's answer as a probability for each category, by scoring each category's label as
the continuation of the prompt — so the answer is always one of the categories, never free text.

For one prompt (everything before the answer, e.g. the instruction, the codebook and the text,
ending in "Answer:") each label's log-likelihood as the prompt's continuation is averaged over the
label's tokens (length-normalised, so a label of several words is not penalised for its length),
and a softmax over the categories gives probabilities that sum to one. The prompt is run once; its
cache (``past_key_values``) is reused for every label, the labels of two or more tokens batched
together, and a label of one token costs no further pass at all. Nothing is sampled: the same
prompt gives the same numbers.

Several categories per text: one yes/no question per category (:func:`yes_no_probabilities`),
P(yes) normalised over yes and no.

Texts are scored in batches (a batch's prompts go through the model together, padded on the left;
a text's yes/no questions likewise); after each batch a :class:`~guiapp.core.events.Progress` goes to
``on_event``, which stops the run by raising :class:`~guiapp.core.events.Cancelled`.
torch is imported inside the functions, so the window opens without it.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.models.zero_shot.descriptions import check_categories

if TYPE_CHECKING:
    from guiapp.core.models.llm.causal_model import CausalModel

SEPARATOR = " "  # between the prompt's last word ("Answer:") and the label
YES_NO = ("Yes", "No")
TEXT_BATCH = 8  # texts between two progress reports (and chances to cancel)
LABEL_BATCH = 32  # labels of several tokens scored in one pass over the prompt's cache

Question = Callable[[str, str], str] | Mapping[str, str]


def label_probabilities(model: CausalModel, prompt: str, labels: Sequence[str], *,
                        separator: str = SEPARATOR) -> np.ndarray:
    """Each label's probability as the answer to ``prompt`` (softmax of the length-normalised
    log-likelihoods); sums to one, in the order of ``labels``."""
    return softmax(label_log_likelihoods(model, prompt, labels, separator=separator))


def label_log_likelihoods(model: CausalModel, prompt: str, labels: Sequence[str], *,
                          separator: str = SEPARATOR, label_batch: int = LABEL_BATCH) -> np.ndarray:
    """Each label's mean log-probability per token as the continuation of ``prompt`` (one pass over
    the prompt, its cache reused for the labels)."""
    return batch_log_likelihoods(model, [prompt], labels, separator=separator, label_batch=label_batch)[0]


def batch_log_likelihoods(model: CausalModel, prompts: Sequence[str], labels: Sequence[str], *,
                          separator: str = SEPARATOR, label_batch: int = LABEL_BATCH) -> np.ndarray:
    """:func:`label_log_likelihoods` for several prompts at once (prompts × labels): the prompts go
    through the model together (padded on the left), then the labels of several tokens, in batches of
    ``label_batch``, each from its own prompt's cache."""
    encoded = [encode(model.tokenizer, prompt, labels, separator) for prompt in prompts]
    for prompt_ids, label_ids in encoded:
        _check_length(model, prompt_ids, label_ids)
    if not encoded:
        return np.zeros((0, len(labels)))
    return _mean_log_likelihoods(model.model, [ids for ids, _ in encoded], [ids for _, ids in encoded],
                                 label_batch, _pad_id(model.tokenizer))


def score_prompts(model: CausalModel, prompts: Sequence[str], labels: Sequence[str],
                  on_event: EventCallback = ignore_events, *, batch_size: int = TEXT_BATCH,
                  separator: str = SEPARATOR, multi_label: bool = False) -> np.ndarray:
    """An array (prompts × labels) of each label's probability as the answer to each prompt."""
    labels = check_categories(labels, multi_label)

    def batch(indices: range) -> list[np.ndarray]:
        scores = batch_log_likelihoods(model, [prompts[index] for index in indices], labels, separator=separator)
        return [softmax(row) for row in scores]

    rows = _in_batches(len(prompts), batch_size, on_event, "texts", batch)
    return np.asarray(rows, dtype=np.float64).reshape(len(prompts), len(labels))


def yes_no_probabilities(model: CausalModel, texts: Sequence[str], categories: Sequence[str], question: Question,
                         on_event: EventCallback = ignore_events, *, batch_size: int = TEXT_BATCH,
                         answers: tuple[str, str] = YES_NO, separator: str = SEPARATOR) -> np.ndarray:
    """Several categories per text: an array (texts × categories) of P(yes) to each category's question.

    ``question`` gives the prompt for a text and a category: a function ``(text, category) -> prompt``,
    or a prompt per category holding ``{text}`` where the text goes. ``answers`` are the words for yes
    and no; P(yes) is normalised over the two.
    """
    categories = check_categories(categories, True)
    ask = _asker(question, categories)

    def batch(indices: range) -> list[list[float]]:
        rows = []
        for index in indices:
            questions = [ask(texts[index], category) for category in categories]
            scores = batch_log_likelihoods(model, questions, list(answers), separator=separator)
            rows.append([float(softmax(pair)[0]) for pair in scores])
        return rows

    rows = _in_batches(len(texts), batch_size, on_event, "texts", batch)
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(categories))


def softmax(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    shifted = np.exp(values - values.max())
    return shifted / shifted.sum()


def encode(tokenizer: Any, prompt: str, labels: Sequence[str], separator: str = SEPARATOR) -> tuple[list[int], list[list[int]]]:
    """The prompt's token ids and each label's, as they follow the prompt: the label's tokens are read
    off the prompt and label encoded together where the prompt's tokens are a prefix of that (so a
    tokenizer that joins words across the boundary scores what it would really see), else the label
    alone."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise UserError("The prompt for a text is empty.", "Write an instruction for the language model.")
    prompt_ids = list(tokenizer(prompt, add_special_tokens=True)["input_ids"])
    if not prompt_ids:
        raise UserError("The prompt for a text has no words the language model knows.",
                        "Check the instruction and the text.")
    label_ids = []
    for label in labels:
        together = list(tokenizer(prompt + separator + label, add_special_tokens=True)["input_ids"])
        ids = together[len(prompt_ids):] if together[:len(prompt_ids)] == prompt_ids else []
        if not ids:
            ids = list(tokenizer(separator + label, add_special_tokens=False)["input_ids"])
        if not ids:
            raise UserError(f"The category “{label}” has no words the language model knows.",
                            "Rename the category, or choose another language model.")
        label_ids.append(ids)
    return prompt_ids, label_ids


def _mean_log_likelihoods(net: Any, prompts_ids: list[list[int]], labels_ids: list[list[list[int]]],
                          label_batch: int, pad_id: int) -> np.ndarray:
    """Prompts × labels: each label's mean log-probability per token after its prompt."""
    import torch

    device = next(net.parameters()).device
    accepts = inspect.signature(net.forward).parameters
    key = "cache" if "cache" in accepts else "past_key_values"  # Transformers renamed it in 5.x
    only_last = {"logits_to_keep": 1} if "logits_to_keep" in accepts else {}
    width = max(len(ids) for ids in prompts_ids)
    # Left padding: every prompt's last token is in the last column, so its next-token scores are there.
    inputs = torch.tensor([[pad_id] * (width - len(ids)) + ids for ids in prompts_ids], device=device)
    mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in prompts_ids], device=device)
    lengths = mask.sum(dim=1)
    with torch.inference_mode():
        output = net(input_ids=inputs, attention_mask=mask, position_ids=(mask.cumsum(dim=1) - 1).clamp(min=0),
                     use_cache=True, **only_last)
        first = torch.log_softmax(output.logits[:, -1].float(), dim=-1).cpu()
        sums = [[float(first[row, ids[0]]) for ids in label_ids] for row, label_ids in enumerate(labels_ids)]
        longer = [(row, column) for row, label_ids in enumerate(labels_ids)
                  for column, ids in enumerate(label_ids) if len(ids) > 1]
        cache = output.get(key)
        step = max(1, label_batch)
        for start in range(0, len(longer), step):
            chunk = longer[start:start + step]
            labels = [labels_ids[row][column] for row, column in chunk]
            extra = max(len(ids) for ids in labels) - 1
            # Right padding: a label's own tokens come before its padding, so (causal attention) the
            # padding never changes their scores.
            label_inputs = torch.tensor([ids[:-1] + [pad_id] * (extra + 1 - len(ids)) for ids in labels], device=device)
            rows = torch.tensor([row for row, _ in chunk], device=device)
            past = cache if start + step >= len(longer) else _shallow_copy(cache)
            past.batch_select_indices(rows)
            attention = torch.cat([mask[rows], torch.ones(len(chunk), extra, dtype=mask.dtype, device=device)], dim=1)
            positions = lengths[rows, None] + torch.arange(extra, device=device)[None, :]
            logits = net(input_ids=label_inputs, attention_mask=attention, position_ids=positions,
                         use_cache=True, **{key: past}).logits
            scores = torch.log_softmax(logits.float(), dim=-1).cpu()
            for place, ((row, column), ids) in enumerate(zip(chunk, labels, strict=True)):
                targets = torch.tensor(ids[1:])
                sums[row][column] += float(scores[place, torch.arange(len(targets)), targets].sum())
    lengths_of_labels = np.array([[len(ids) for ids in label_ids] for label_ids in labels_ids], dtype=np.float64)
    return np.asarray(sums, dtype=np.float64) / lengths_of_labels


def _shallow_copy(cache: Any) -> Any:
    """A cache whose rows can be selected and extended without touching ``cache``: its layers are
    copied, not their tensors (selecting and extending make new tensors), so the prompts' cache is
    not held twice in memory; a cache of another make is copied whole."""
    layers = getattr(cache, "layers", None)
    if not isinstance(layers, list):
        return copy.deepcopy(cache)
    copied = copy.copy(cache)
    copied.layers = [copy.copy(layer) for layer in layers]
    return copied


def _pad_id(tokenizer: Any) -> int:
    for name in ("pad_token_id", "eos_token_id", "unk_token_id"):
        value = getattr(tokenizer, name, None)
        if isinstance(value, int):
            return value
    return 0


def _check_length(model: CausalModel, prompt_ids: list[int], label_ids: list[list[int]]) -> None:
    limit = model.max_tokens
    needed = len(prompt_ids) + max(len(ids) for ids in label_ids)
    if limit is not None and needed > limit:
        raise UserError(f"A prompt is {needed:,} tokens long with its answer, and the language model "
                        f"{model.name} reads at most {limit:,}.",
                        "Shorten the instruction or the definitions, show fewer examples per category, or "
                        "choose a model that reads longer texts.")


def _asker(question: Question, categories: list[str]) -> Callable[[str, str], str]:
    if callable(question):
        return question
    if isinstance(question, Mapping):
        missing = [name for name in categories if not isinstance(question.get(name), str) or "{text}" not in question[name]]
        if missing:
            raise UserError(f"The question for the category “{missing[0]}” is missing or has no place for the text.",
                            "Write a question for every category, with {text} where the text goes.")
        return lambda text, category: question[category].replace("{text}", text)
    raise UserError("The questions for the categories must be a function or a question per category.")


def _in_batches(total: int, batch_size: int, on_event: EventCallback, what: str,
                score: Callable[[range], list[Any]]) -> list[Any]:
    """``score(indices)`` (a row per index) for each batch of indices, with progress (and a chance to
    cancel) before the first batch and after each."""
    batch_size = max(1, int(batch_size))
    rows: list[Any] = []
    on_event(Progress(0.0 if total else 1.0, f"Scoring {total:,} {what} with the language model", 0, total))
    for start in range(0, total, batch_size):
        rows.extend(score(range(start, min(start + batch_size, total))))
        on_event(Progress(len(rows) / total, f"Scored {len(rows):,} of {total:,} {what}", len(rows), total))
    return rows
