"""From a Transformer's subword pieces back to the researcher's words, and which parts it never read.

A Transformer reads pieces ("tax", "##es", "[UNK]" for an emoji, "cafe" for "café"), but every
explanation colours the words of :func:`guiapp.core.explain.words.split_words`. The fast
tokenizer's offsets say which characters of the original text each piece came from (accents
stripped by an uncased tokenizer still point at "café"), so a piece belongs to the word its
characters overlap. Our words and the tokenizer's pieces disagree at the edges: "3.5%" is one
number and a "%" for us but four pieces; "don't" is one word for us but three pieces; a
SentencePiece piece may take in a space and straddle two words. So several pieces may make one
word, and a piece that straddles two words shares its score between them by the characters it
covers in each.

The pieces are the very ones the model reads at prediction: the text goes through
:func:`~guiapp.core.models.transformers.training.truncation.encode_texts` with the model's own
limit and strategy, and the cut of a long text (first 128 + last 382 pieces by default) is
computed with the same rule (:func:`split_budget`), so the unseen middle is known in characters.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.explain.words import WordSpan, split_words
from guiapp.core.models.transformers.training.truncation import position_limit  # the cap prediction applies
from guiapp.core.models.transformers.training.truncation import encode_texts, special_tokens, split_budget

NO_WORD = -1  # word index of special tokens ([CLS], [SEP], padding)


@dataclass(frozen=True)
class PieceAlignment:
    """The pieces a model reads for one text, each tied to the words it came from."""

    text: str
    words: list[WordSpan]
    input_ids: list[int]  # what the model reads, special tokens included, after the cut
    tokens: list[str]  # the pieces as labels ("[CLS]", "tax", "##es", "[SEP]")
    offsets: list[tuple[int, int]]  # per piece, its characters in ``text``; (0, 0) for special tokens
    special: list[bool]  # per piece: added by the tokenizer, not from the text
    word_index: list[int]  # per piece, the word it (mostly) belongs to; NO_WORD for special tokens
    shares: list[list[tuple[int, float]]]  # per piece, (word, share) pairs summing to 1; [] for special ones
    unseen: list[tuple[int, int]]  # character ranges of ``text`` the model never read (the cut middle)

    @property
    def cut(self) -> bool:
        return bool(self.unseen)

    def word_scores(self, piece_scores: Sequence[float] | np.ndarray) -> tuple[np.ndarray, float, float]:
        """Per-word sums of per-piece scores, plus the special tokens' total and the total of
        pieces that touch no word at all (a text of only control characters): the three add up
        to the sum of ``piece_scores``."""
        scores = np.asarray(piece_scores, dtype=np.float64)
        if scores.shape != (len(self.input_ids),):
            raise ValueError(f"{scores.shape} scores for {len(self.input_ids)} pieces")
        out = np.zeros(len(self.words), dtype=np.float64)
        special = unplaced = 0.0
        for score, is_special, shares in zip(scores, self.special, self.shares, strict=True):
            if is_special:
                special += float(score)
            elif not shares:
                unplaced += float(score)
            for word, share in shares:
                out[word] += share * score
        return out, special, unplaced

    def words_unseen(self) -> list[int]:
        """Indices of the words the model did not read at all."""
        read = {word for shares in self.shares for word, _ in shares}
        return [i for i in range(len(self.words)) if i not in read]


def align_pieces(tokenizer: Any, text: str, max_length: int = 512, strategy: str = "head_tail") -> PieceAlignment:
    """The pieces ``tokenizer`` makes of ``text`` as a model reads them (cut to ``max_length``
    pieces by ``strategy``, exactly as at training and prediction), tied to the words of ``text``."""
    if not getattr(tokenizer, "is_fast", False):
        raise UserError("This model's tokenizer cannot say which characters each of its pieces came from, "
                        "so its pieces cannot be traced back to words.",
                        "Explanations need a model with a “fast” tokenizer (most Hugging Face models have one).")
    encoded = encode_texts(tokenizer, [text], max_length, strategy)  # first: it also mutes the length warning
    input_ids = list(encoded.input_ids[0])
    content = tokenizer(text, add_special_tokens=False, truncation=False, padding=False,
                        return_offsets_mapping=True)
    content_ids, content_offsets = list(content["input_ids"]), [tuple(o) for o in content["offset_mapping"]]
    prefix, suffix = special_tokens(tokenizer)
    first, last = split_budget(encoded.max_length - len(prefix) - len(suffix), strategy)
    kept = list(range(len(content_ids)))
    unseen: list[tuple[int, int]] = []
    if len(content_ids) > first + last:
        dropped_from, dropped_to = first, len(content_ids) - last  # pieces [dropped_from, dropped_to) are cut
        kept = kept[:dropped_from] + kept[dropped_to:]
        unseen = [(int(content_offsets[dropped_from][0]), int(content_offsets[dropped_to - 1][1]))]
    if input_ids != prefix + [content_ids[i] for i in kept] + suffix:
        raise RuntimeError("the pieces traced back to words differ from the pieces the model reads")
    words = split_words(text)
    starts = [w.start for w in words]
    offsets = [(0, 0)] * len(prefix) + [_pair(content_offsets[i]) for i in kept] + [(0, 0)] * len(suffix)
    special = [True] * len(prefix) + [False] * len(kept) + [True] * len(suffix)
    shares = [[] if is_special else _word_shares(words, starts, start, end)
              for (start, end), is_special in zip(offsets, special, strict=True)]
    word_index = [max(s, key=lambda pair: pair[1])[0] if s else NO_WORD for s in shares]
    tokens = list(tokenizer.convert_ids_to_tokens(input_ids))
    return PieceAlignment(text, words, input_ids, tokens, offsets, special, word_index, shares, unseen)


def align_for_model(model: Any, text: str) -> PieceAlignment:
    """:func:`align_pieces` with a :class:`~guiapp.core.predict.trained_model.TransformerModel`'s own
    tokenizer, length limit and way of cutting long texts (those of its training)."""
    fine_tuned = model.fine_tuned
    settings = fine_tuned.settings
    limit = position_limit(int(settings.max_length), fine_tuned.model.config)
    return align_pieces(fine_tuned.tokenizer, text, limit, settings.truncation)


def _pair(offset: Sequence[int]) -> tuple[int, int]:
    return int(offset[0]), int(offset[1])


def _word_shares(words: list[WordSpan], starts: list[int], start: int, end: int) -> list[tuple[int, float]]:
    """Which words the characters ``start:end`` of a piece fall in, and in what share.

    A piece inside one word (the usual case) gives [(word, 1.0)]; a piece over two words splits by
    characters. A piece that covers none of our words (only characters the word split drops, such
    as a zero-width joiner, or an empty span) goes to the nearest word, so no score is lost.
    """
    if not words:
        return []
    i = max(0, bisect.bisect_right(starts, start) - 1)
    overlaps: list[tuple[int, int]] = []
    while i < len(words) and words[i].start < max(end, start + 1):
        covered = min(end, words[i].end) - max(start, words[i].start)
        if covered > 0:
            overlaps.append((i, covered))
        i += 1
    if overlaps:
        total = sum(c for _, c in overlaps)
        return [(word, c / total) for word, c in overlaps]
    return [(_nearest_word(words, starts, start, end), 1.0)]


def _nearest_word(words: list[WordSpan], starts: list[int], start: int, end: int) -> int:
    after = bisect.bisect_left(starts, end)  # first word starting at or after the piece's end
    before = after - 1
    if after >= len(words):
        return before
    if before < 0:
        return after
    return before if start - words[before].end <= words[after].start - end else after


__all__ = ["NO_WORD", "PieceAlignment", "align_for_model", "align_pieces"]
