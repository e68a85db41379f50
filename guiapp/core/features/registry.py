"""The representations TextLab offers, their options, defaults and plain-language help.

The GUI builds a representation's options from :func:`default_options` and shows
:data:`OPTION_HELP` as tooltips; :func:`validate_options` checks them before a run;
the experiment engine calls :func:`make_representation`.
"""

from __future__ import annotations

import inspect
from typing import Any

from guiapp.core.errors import UserError, one_of
from guiapp.core.features.bow import ANALYZERS, WEIGHTINGS, BagOfWords
from guiapp.core.features.sentence_embeddings import SentenceEmbeddings
from guiapp.core.features.stemming import STEM_LANGUAGES
from guiapp.core.features.stop_words import STOP_WORD_LANGUAGES
from guiapp.core.features.word_vectors import AveragedWordVectors

REPRESENTATIONS: dict[str, type] = {
    "bow": BagOfWords,
    "word_vectors": AveragedWordVectors,
    "sentence_embeddings": SentenceEmbeddings,
}

DESCRIPTIONS: dict[str, str] = {
    "bow": "Basic bag of words: which words each text contains, ignoring their order.",
    "word_vectors": "Word vectors (GloVe): each text is the average meaning-vector of its words.",
    "sentence_embeddings": "Sentence embeddings: a pretrained language model turns each text into "
    "one meaning-vector.",
}

OPTION_HELP: dict[str, dict[str, str]] = {
    "bow": {
        "lowercase": "Lowercase: treat 'Tax' and 'tax' as the same word.",
        "remove_punctuation": "Remove punctuation: leave out marks such as . , ! ? so they are not "
        "counted as words.",
        "remove_numbers": "Remove numbers: leave out numbers such as 2020 or 1,000.",
        "remove_symbols": "Remove symbols: leave out emoji, currency signs and maths symbols.",
        "stem_language": "Stemming: reduce words to their stem so that 'taxes' and 'taxed' count "
        "as the same word (choose the language of your texts, or none).",
        "stop_words": "Stop words: leave out very common words such as 'the' and 'and' (choose a "
        "language, or none).",
        "min_df": "Minimum share of texts: leave out words that appear in fewer than this share "
        "of the texts (0.001 = 0.1 %).",
        "max_df": "Maximum share of texts: leave out words that appear in more than this share of "
        "the texts (0.33 = 33 %).",
        "weighting": "Weighting: 'binary' notes only whether a word occurs, 'counts' how often, "
        "'tfidf' gives rare words more weight than common ones.",
        "ngram_max": "Word sequences: 1 counts single words, 2 also counts pairs of neighbouring "
        "words such as 'tax cut'.",
        "analyzer": "Unit: 'word' counts words; 'char' counts short pieces of letters inside "
        "words, which copes with spelling variants and typos.",
        "char_ngram_min": "Shortest letter piece: the smallest number of characters in a piece "
        "(only for the 'char' unit).",
        "char_ngram_max": "Longest letter piece: the largest number of characters in a piece "
        "(only for the 'char' unit).",
    },
    "word_vectors": {
        "vectors": "Word vectors: the bundled GloVe vectors (glove-6b-50d), or your own GloVe or "
        "word2vec text file such as glove.42B.300d.txt.",
        "min_count": "Minimum number of occurrences: a word is used only if it appears at least "
        "this many times in the coded texts.",
        "lowercase": "Lowercase: treat 'Tax' and 'tax' as the same word (GloVe 6B knows only "
        "lowercase words).",
        "remove_punctuation": "Remove punctuation: leave punctuation marks out of the average.",
        "remove_numbers": "Remove numbers: leave numbers out of the average.",
    },
    "sentence_embeddings": {
        "model": "Model: the bundled all-MiniLM-L6-v2, or a folder with another downloaded "
        "sentence model.",
        "normalize": "Normalise: scale every text's vector to length 1, as the model's authors "
        "recommend.",
        "max_length": "Maximum text length: the model reads at most this many word pieces of "
        "each text; the rest is cut off.",
        "batch_size": "Batch size: how many texts are processed at once; larger is faster but "
        "needs more memory.",
    },
}

#: Allowed values for options that take one of a fixed set (None = "none", for dropdowns).
OPTION_CHOICES: dict[str, dict[str, list[Any]]] = {
    "bow": {
        "stem_language": [None, *STEM_LANGUAGES],
        "stop_words": [None, *STOP_WORD_LANGUAGES],
        "weighting": list(WEIGHTINGS),
        "analyzer": list(ANALYZERS),
    },
    "word_vectors": {},
    "sentence_embeddings": {},
}


def _class_for(kind: str) -> type:
    return one_of(REPRESENTATIONS, kind, f"TextLab has no representation called “{kind}”.", "Choose one of")


def default_options(kind: str) -> dict[str, Any]:
    """The constructor defaults of a representation, as a plain JSON-able dict."""
    signature = inspect.signature(_class_for(kind).__init__)
    return {
        name: parameter.default
        for name, parameter in signature.parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }


def make_representation(kind: str, options: dict[str, Any] | None = None) -> Any:
    """A new representation of ``kind`` with ``options``; UserError for unknown or bad options."""
    cls = _class_for(kind)
    options = dict(options or {})
    allowed = default_options(kind)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise UserError(
            f"The {kind} representation has no option {', '.join(map(repr, unknown))}.",
            f"Allowed options: {', '.join(allowed)}.",
        )
    representation = cls(**options)
    representation.validate()
    return representation


def validate_options(kind: str, options: dict[str, Any]) -> None:
    """UserError with a plain sentence if ``options`` are not valid for ``kind``."""
    make_representation(kind, options)
