"""Text lengths for the data-health report: empty texts, words, subword tokens, histograms.

Texts are processed in chunks with pyarrow's vectorised string functions, reporting progress
after each chunk so that a million rows stay responsive and cancellable.

Histograms have about 30 bins of a round width starting at 0 and reaching past the 99th
percentile (for tokens, always past the limit, and the bin edges are powers of two so that 512
is an edge). When longer texts exist, one more, wider bin from the last round edge to
``max + 1`` holds them, so the counts always add up to ``n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from guiapp.core.events import EventCallback, Progress
from guiapp.core.health.checks import make_issue, plural
from guiapp.core.health.findings import HealthIssue, LengthStats

CHUNK_ROWS = 100_000
TOKEN_SAMPLE = 20_000
TOKEN_SAMPLE_SEED = 0
SHORT_WORDS = 2
SHORT_SHARE = 0.25
LONG_WARNING_SHARE = 0.25
TARGET_BINS = 30
MAX_BINS = 36  # a round width may give a few more than TARGET_BINS



@dataclass
class TextMeasures:
    trimmed: pd.Series  # texts without surrounding whitespace (str)
    empty: np.ndarray  # bool per row: empty or whitespace only
    words: np.ndarray  # int per row: words (whitespace-separated pieces), 0 when empty


def _arrow_strings(texts: pd.Series) -> pa.Array:
    array = pa.array(texts.array) if hasattr(texts.array, "__arrow_array__") else None
    if array is None:
        array = pa.array(texts.astype(object).to_numpy(), type=pa.large_string())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return pc.fill_null(array, "")


def measure_texts(texts: pd.Series, on_event: EventCallback) -> TextMeasures:
    array = _arrow_strings(texts)
    n = len(array)
    trimmed_chunks: list[pa.Array] = []
    words = np.zeros(n, dtype=np.int64)
    empty = np.zeros(n, dtype=bool)
    for start in range(0, n, CHUNK_ROWS):
        chunk = pc.utf8_trim_whitespace(array.slice(start, CHUNK_ROWS))
        stop = start + len(chunk)
        is_empty = pc.equal(chunk, "").to_numpy(zero_copy_only=False)
        pieces = pc.list_value_length(pc.utf8_split_whitespace(chunk)).to_numpy(zero_copy_only=False)
        words[start:stop] = np.where(is_empty, 0, pieces)
        empty[start:stop] = is_empty
        trimmed_chunks.append(chunk)
        on_event(Progress(stop / n, "Measuring the texts", stop, n))
    trimmed = pa.chunked_array(trimmed_chunks, type=array.type)
    return TextMeasures(pd.Series(pd.arrays.ArrowStringArray(trimmed)), empty, words)


def _round_widths(unit: str) -> list[int]:
    if unit == "tokens":
        return [2**k for k in range(40)]
    steps = [1, 2, 3, 4, 5] + [int(m * 10**k) for k in range(1, 12)
                               for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8)]
    return steps


def histogram(
    values: np.ndarray, unit: str, limit: int | None = None
) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """Round bin edges and counts for non-negative integer lengths (see the module docstring)."""
    if len(values) == 0:
        return (), ()
    top = max(float(np.percentile(values, 99)), 1.0)
    if limit is not None:
        top = max(top, limit * 1.1)
    limit_bins = MAX_BINS if unit == "tokens" else TARGET_BINS
    width = next(w for w in _round_widths(unit) if math.floor(top / w) + 1 <= limit_bins)
    n_bins = math.floor(top / width) + 1
    biggest = int(values.max())
    if biggest >= n_bins * width and biggest // width + 1 <= MAX_BINS:
        n_bins = biggest // width + 1  # a few more round bins reach the longest text
    edges = [float(i * width) for i in range(n_bins + 1)]
    if biggest >= edges[-1]:
        edges.append(float(biggest + 1))
    counts, _ = np.histogram(values, bins=np.asarray(edges))
    return tuple(edges), tuple(int(c) for c in counts)


def length_stats(values: np.ndarray, unit: Literal["words", "tokens"], *, limit: int | None = None,
                 sampled: bool = False) -> LengthStats | None:
    if len(values) == 0:
        return None
    edges, counts = histogram(values, unit, limit)
    over = int((values > limit).sum()) if limit is not None else None
    return LengthStats(
        unit=unit,
        n=len(values),
        mean=float(values.mean()),
        median=float(np.median(values)),
        p90=float(np.percentile(values, 90)),
        max=int(values.max()),
        histogram_edges=edges,
        histogram_counts=counts,
        limit=limit,
        share_over_limit=over / len(values) if over is not None else None,
        n_over_limit=over,
        sampled=sampled,
    )


def text_issues(measures: TextMeasures, coded: np.ndarray, columns: list[str]) -> list[HealthIssue]:
    names = ", ".join(f"'{c}'" for c in columns)
    empty = measures.empty
    n_empty = int(empty.sum())
    if n_empty == len(empty):
        return [make_issue(
            "error", "all_texts_empty", "All texts are empty",
            f"The text column {names} has no text in any row.",
            "Choose the column that holds your texts.",
            empty,
        )]
    issues: list[HealthIssue] = []
    if n_empty:
        n_coded_empty = int((empty & coded).sum())
        issues.append(make_issue(
            "warning", "empty_texts",
            f"{plural(n_empty, 'text')} {'is' if n_empty == 1 else 'are'} empty",
            f"These rows have no text (or only spaces) in {names}"
            f"{f'; {n_coded_empty:,} of them are coded' if n_coded_empty else ''}. "
            "An empty text cannot teach a model anything, nor be coded by one.",
            "Fill in the texts, or check that you chose the right text column.",
            empty,
        ))
    words = measures.words[~empty]
    short = words <= SHORT_WORDS
    if len(words) >= 20 and short.mean() > SHORT_SHARE:
        issues.append(make_issue(
            "info", "short_texts",
            f"{short.mean():.0%} of the texts have only one or two words",
            "Very short texts give a model little to go on; models that know the meaning of "
            "words (word vectors, Transformers) usually cope better with them.",
            "Check that the text column holds the full texts.",
            np.flatnonzero(~empty)[short],
        ))
    return issues


def sample_positions(nonempty: np.ndarray) -> tuple[np.ndarray, bool]:
    """Positions of the texts to tokenise: all, or a seeded random sample of TOKEN_SAMPLE."""
    positions = np.flatnonzero(nonempty)
    if len(positions) <= TOKEN_SAMPLE:
        return positions, False
    rng = np.random.default_rng(TOKEN_SAMPLE_SEED)
    return np.sort(rng.choice(positions, TOKEN_SAMPLE, replace=False)), True


def token_issues(stats: LengthStats, positions: np.ndarray, counts: np.ndarray,
                 tokenizer: str) -> list[HealthIssue]:
    if not stats.n_over_limit or stats.limit is None or stats.share_over_limit is None:
        return []
    share, limit = stats.share_over_limit, stats.limit
    title = (f"About {share:.0%} of the texts are longer than {limit} tokens" if stats.sampled
             else f"{plural(stats.n_over_limit, 'text')} {'is' if stats.n_over_limit == 1 else 'are'} "
                  f"longer than {limit} tokens")
    if stats.sampled and share < 0.005:
        title = f"A few texts are longer than {limit} tokens"
    return [make_issue(
        "warning" if share >= LONG_WARNING_SHARE else "info", "long_texts", title,
        "Transformer models cut a text into subword pieces (“tokens”; a word is one to a few "
        f"tokens) and read only the first {limit} of them ({tokenizer}), so the rest of a "
        "longer text is not used. TextLab will offer to keep the beginning and the end of long "
        "texts instead."
        + (" Estimated from a random sample of texts." if stats.sampled else ""),
        "Nothing to do. If the end of your texts matters, choose “beginning and end” when you "
        "compare Transformer models.",
        positions[counts > limit],
    )]
