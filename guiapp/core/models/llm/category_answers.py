"""From what a language model wrote to a probability for each category, without silent mapping.

* :func:`read_answer`: a generated answer is a category only when it names one exactly (capitals,
  spaces and punctuation aside) or is a JSON object ``{"category": ...}`` (``{"answer": ...}`` for
  a yes/no question) that does; anything else is *outside the categories*, kept and counted, never
  mapped to the nearest category.
* :func:`answer_shares`: the shares of n sampled answers (self-consistency) as probabilities over
  exactly the categories, with the answers outside them reported beside.
* :func:`probabilities_from_logprobs`: where a server returns the top log-probabilities of the
  first answer tokens, each category's probability is the summed probability of the tokens that
  begin it (following the generated tokens where categories begin alike), normalised over the
  categories (a softmax over their log-probabilities).
* :class:`OutsideTally`: the answers outside the categories over a whole run, for the results.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from guiapp.core.models.llm.codebook_prompt import ANSWER_KEY, CATEGORY_KEY, answer_key

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
_JSON_START = re.compile(r'^\s*(?:```(?:json)?\s*)?\{\s*"(?:%s|%s)"\s*:\s*"?' % (CATEGORY_KEY, ANSWER_KEY),
                         re.IGNORECASE)


def read_answer(raw: object, allowed: Sequence[str]) -> str | None:
    """The allowed answer (a category, or yes/no) that ``raw`` names, else None (outside)."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    keys = {answer_key(name): name for name in allowed}
    direct = keys.get(answer_key(text)) if answer_key(text) else None
    if direct is not None and not text.startswith("{"):
        return direct
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, Mapping):
        named = [value[key] for key in (CATEGORY_KEY, ANSWER_KEY) if key in value]
        if len(named) == 1 and isinstance(named[0], str) and answer_key(named[0]):
            return keys.get(answer_key(named[0]))
    return None


@dataclass(frozen=True)
class AnswerShares:
    """n answers to one question: ``probabilities`` over exactly the allowed answers (summing to
    one; None when no answer fell inside them), ``counts`` per allowed answer, and the answers that
    fell outside."""

    probabilities: dict[str, float] | None
    counts: dict[str, int]
    n: int
    outside_answers: tuple[str, ...]

    @property
    def outside(self) -> int:
        return len(self.outside_answers)


def answer_shares(raw_answers: Sequence[object], allowed: Sequence[str]) -> AnswerShares:
    """The shares of the sampled answers that name each allowed answer (self-consistency); the
    answers outside are counted apart, not spread over the categories."""
    counts = dict.fromkeys(allowed, 0)
    outside: list[str] = []
    for raw in raw_answers:
        name = read_answer(raw, allowed)
        if name is None:
            outside.append(raw if isinstance(raw, str) else repr(raw))
        else:
            counts[name] += 1
    inside = sum(counts.values())
    probabilities = {name: count / inside for name, count in counts.items()} if inside else None
    return AnswerShares(probabilities, counts, len(raw_answers), tuple(outside))


@dataclass
class OutsideTally:
    """The answers outside the categories over a run: how many, of how many, and the commonest."""

    asked: int = 0
    answers: Counter = field(default_factory=Counter)

    def add(self, shares: AnswerShares) -> None:
        self.asked += shares.n
        self.answers.update(answer.strip()[:200] for answer in shares.outside_answers)

    def merge(self, other: OutsideTally) -> None:
        """Count ``other``'s answers too (a study's many models of one language model, as one tally)."""
        self.asked += other.asked
        self.answers.update(other.answers)

    @property
    def outside(self) -> int:
        return sum(self.answers.values())

    def note(self, most: int = 3, whose: str = "") -> str:
        """One sentence for the results, e.g. "12 of 400 answers (3.0 %) named no category; the
        commonest: “Sports” (7), “I cannot tell” (5)."; ``whose`` follows "answers" (" of the server")."""
        if not self.outside:
            return f"All {self.asked:,} answers{whose} named one of the categories." if self.asked else ""
        common = ", ".join(f"“{answer}” ({count})" for answer, count in self.answers.most_common(most))
        return (f"{self.outside:,} of {self.asked:,} answers{whose} ({100 * self.outside / self.asked:.1f} %) named no "
                f"category and were counted as outside the categories, not as any category; the commonest: {common}.")


@dataclass(frozen=True)
class TokenChoice:
    """One generated token and the top alternatives the server reported at its place (each a
    (token, log-probability) pair; the generated token is among them)."""

    token: str
    top: tuple[tuple[str, float], ...]


def token_choices(entries: Sequence[Mapping]) -> list[TokenChoice]:
    """The server's log-probabilities of the generated tokens as :class:`TokenChoice` items. Reads
    the OpenAI chat-completions form (``choices[0].logprobs.content``), which Ollama and
    llama-server also return: ``[{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}]``."""
    choices = []
    for entry in entries:
        token, logprob = str(entry.get("token", "")), float(entry.get("logprob", -math.inf))
        top = [(str(item.get("token", "")), float(item.get("logprob", -math.inf)))
               for item in entry.get("top_logprobs") or ()]
        if token not in {alternative for alternative, _ in top}:
            top.append((token, logprob))
        choices.append(TokenChoice(token, tuple(top)))
    return choices


@dataclass(frozen=True)
class LogprobAnswer:
    """Probabilities over exactly the allowed answers (None when no reported token begins any of
    them) and ``covered``, the probability the reported tokens gave the answers at all (small when
    the model meant to write something else)."""

    probabilities: dict[str, float] | None
    covered: float


def probabilities_from_logprobs(choices: Sequence[TokenChoice], allowed: Sequence[str]) -> LogprobAnswer:
    """Each allowed answer's probability from the top log-probabilities of the first answer tokens.

    A reported token counts for an answer when the answer's key (capitals, spaces and punctuation
    aside) begins with what was written so far plus the token; a token that begins several answers
    is split by the next position's log-probabilities when it is the generated one, else equally.
    A leading JSON wrapper (``{"category": "``) and leading spaces or quotes are passed over."""
    keys = {name: answer_key(name) for name in allowed}
    start, lead = _answer_start(choices)
    if start >= len(choices):
        return LogprobAnswer(None, 0.0)
    masses, covered = _descend(choices, start, lead, "", list(allowed), keys)
    total = sum(masses.values())
    if total <= 0:
        return LogprobAnswer(None, 0.0)
    return LogprobAnswer({name: masses.get(name, 0.0) / total for name in allowed}, min(1.0, covered))


def _answer_start(choices: Sequence[TokenChoice]) -> tuple[int, str]:
    """The position of the first answer token, and the part of that token that is not the answer."""
    text = "".join(choice.token for choice in choices)
    wrapper = _JSON_START.match(text)
    skip = wrapper.end() if wrapper else 0
    offset, index = 0, 0
    while index < len(choices) and offset + len(choices[index].token) <= skip:
        offset += len(choices[index].token)
        index += 1
    lead = choices[index].token[:skip - offset] if index < len(choices) and skip > offset else ""
    while index < len(choices) and not answer_key(choices[index].token[len(lead):]):
        index, lead = index + 1, ""
    return index, lead


def _descend(choices: Sequence[TokenChoice], index: int, lead: str, prefix: str, candidates: list[str],
             keys: dict[str, str]) -> tuple[dict[str, float], float]:
    groups: dict[tuple[str, ...], float] = {}
    chosen_group: tuple[str, ...] = ()
    for token, logprob in choices[index].top:
        if lead:
            if not token.startswith(lead):
                continue
            token = token[len(lead):]
        group = _group(prefix, answer_key(token), candidates, keys)
        if token == choices[index].token[len(lead):]:
            chosen_group = group
        if group:
            groups[group] = groups.get(group, 0.0) + math.exp(logprob)
    masses: dict[str, float] = {}
    for group, mass in groups.items():
        shares = dict.fromkeys(group, 1 / len(group))
        if len(group) > 1 and group == chosen_group and index + 1 < len(choices):
            chosen_key = prefix + answer_key(choices[index].token[len(lead):])
            below, _ = _descend(choices, index + 1, "", chosen_key, list(group), keys)
            if sum(below.values()) > 0:
                shares = {name: below.get(name, 0.0) / sum(below.values()) for name in group}
        for name, share in shares.items():
            masses[name] = masses.get(name, 0.0) + mass * share
    return masses, sum(groups.values())


def _group(prefix: str, added: str, candidates: list[str], keys: dict[str, str]) -> tuple[str, ...]:
    """The candidates that the text written so far plus a token still begins (a token that adds
    nothing ends the answer: it belongs to a candidate already complete)."""
    written = prefix + added
    if not written:
        return ()
    if not added:
        return tuple(name for name in candidates if keys[name] == prefix)
    return tuple(name for name in candidates if keys[name].startswith(written))
