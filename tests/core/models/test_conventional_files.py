"""Saved conventional models: the same answers after opening, and unsafe folders refused."""

from __future__ import annotations

import json
import pickle
import shutil

import joblib
import numpy as np
import pytest
import scipy.sparse as sp

from guiapp.core.errors import UserError
from guiapp.core.experiment.protocol import fitting
from guiapp.core.experiment.families.conventional_files import (
    FORMAT_VERSION,
    MODEL_FILE,
    SKOPS_FILE,
    load_conventional,
    save_conventional,
)
from guiapp.core.features import AveragedWordVectors, BagOfWords, SentenceEmbeddings
from tests.core.synthetic_texts import coded_texts

CATEGORIES = ["defence", "energy", "health"]
# texts the models never saw: new words, hashtags, contractions, an empty text
EXTRA = ["", "Nothing known here zzzq.", "#war and #oil don't matter, it's the #health bill",
         "The army's fuel can't wait; doctors' care won't.", "WAR war War!!"]

CLASSIFIERS = [
    ("svm", {"kernel": "linear", "C": 1.0}),
    ("svm", {"kernel": "rbf", "C": 10.0, "gamma": 0.1}),
    ("xgboost", {"n_estimators": 20, "max_depth": 3, "learning_rate": 0.3}),
    ("logistic_regression", {"C": 1.0}),
    ("naive_bayes", {"alpha": 0.1}),
]


def corpus(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    frame = coded_texts(n, shares=(0.5, 0.3, 0.2), seed=seed)
    texts = frame["text"].tolist()
    texts[::7] = [text.replace(" ", " #", 1).replace("the", "it's") for text in texts[::7]]
    return texts, np.searchsorted(CATEGORIES, frame["label"].to_numpy().astype(str))


def make_representation(kind: str):
    if kind == "bow":
        return BagOfWords(min_df=0.01, max_df=0.9, weighting="tfidf", ngram_max=2)
    if kind == "bow_binary":
        return BagOfWords(min_df=0.02, max_df=0.5, stop_words="english")
    if kind == "word_vectors":
        return AveragedWordVectors(min_count=2)
    return SentenceEmbeddings(max_length=32)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("cache")
        patch.setenv("TEXTLAB_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def fitted(cache_dir):
    """Per representation: (fitted representation, X_train, y_train, new texts)."""
    out = {}
    for kind in ("bow", "bow_binary", "word_vectors", "sentence_embeddings"):
        n = 40 if kind == "sentence_embeddings" else 150
        texts, y = corpus(n, seed=1)
        new_texts = corpus(30 if kind == "sentence_embeddings" else 60, seed=2)[0] + EXTRA
        representation = make_representation(kind)
        X = representation.fit_transform(texts)
        out[kind] = (representation, X, y, new_texts)
    return out


def answers(representation, classifier, texts):
    X = representation.transform(texts)
    return X, fitting.predict(classifier, X), fitting.predict_proba(classifier, X, len(CATEGORIES))


def same(a, b) -> bool:
    if sp.issparse(a):
        return sp.issparse(b) and a.shape == b.shape and (a != b).nnz == 0 and a.dtype == b.dtype
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(a, b)


CASES = [(kind, key, params) for kind in ("bow", "bow_binary", "word_vectors", "sentence_embeddings")
         for key, params in CLASSIFIERS
         if key != "naive_bayes" or kind.startswith("bow")]


@pytest.mark.parametrize(("kind", "key", "params"), CASES,
                         ids=[f"{kind}-{key}-{params.get('kernel', '')}" for kind, key, params in CASES])
def test_round_trip_gives_identical_answers(fitted, tmp_path, kind, key, params):
    representation, X, y, new_texts = fitted[kind]
    classifier = fitting.fit_classifier(key, params, 0, 1, X, y, probabilities=True)
    before = answers(representation, classifier, new_texts)
    meta = {"name": f"{kind} {key}", "params": params}
    save_conventional(tmp_path / "model", representation, classifier, CATEGORIES, meta)
    saved = load_conventional(tmp_path / "model")
    after = answers(saved.representation, saved.classifier, new_texts)
    assert saved.categories == CATEGORIES and saved.meta == json.loads(json.dumps(meta))
    assert all(same(a, b) for a, b in zip(before, after, strict=True))
    assert before[2] is not None  # every final model gives probabilities
    # a model opened from its folder saves again to the same answers
    save_conventional(tmp_path / "again", saved.representation, saved.classifier, CATEGORIES, meta)
    again = load_conventional(tmp_path / "again")
    assert all(same(a, b) for a, b in zip(before, answers(again.representation, again.classifier,
                                                            new_texts), strict=True))


def test_uncalibrated_svm_and_missing_category(fitted, tmp_path):
    representation, X, y, new_texts = fitted["bow"]
    rows = y != 1  # the model never saw the middle category
    classifier = fitting.fit_classifier("svm", {"kernel": "linear", "C": 1.0}, 0, 1, X[rows], y[rows])
    before = answers(representation, classifier, new_texts)
    save_conventional(tmp_path / "m", representation, classifier, CATEGORIES, {})
    saved = load_conventional(tmp_path / "m")
    after = answers(saved.representation, saved.classifier, new_texts)
    assert before[2] is None and all(same(a, b) for a, b in zip(before, after, strict=True))
    assert saved.classifier.textlab_classes_.tolist() == [0, 2]


def test_word_vectors_need_no_vector_file_and_keep_fallbacks(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    vectors = tmp_path / "v.txt"
    rows = {"do": [1, 0, 0], "n't": [0, 1, 0], "'s": [0, 0, 1], "war": [2, 2, 0], "#war": [9, 9, 9],
            "don't": [5, 5, 5], "it": [0, 3, 3], "army": [1, 1, 1], "tax": [4, 0, 4], "is": [2, 0, 1]}
    vectors.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in rows.items()), "utf-8")
    texts = ["do do war war army army", "isn't isn't it's it's war army", "tax do war"]
    representation = AveragedWordVectors(vectors=str(vectors), min_count=2).fit(texts)
    new = ["#war don't", "it's", "don’t do", "#army", "tax's", "zzz's", "#tax"]
    before = representation.transform(new)
    classifier = fitting.fit_classifier("logistic_regression", {"C": 1.0}, 0, 1,
                                        representation.transform(texts), np.array([0, 1, 0]))
    save_conventional(tmp_path / "m", representation, classifier, ["a", "b"], {})
    vectors.unlink()
    shutil.rmtree(tmp_path / "cache")
    saved = load_conventional(tmp_path / "m")
    assert np.array_equal(saved.representation.transform(new), before)
    # "#war" and "don't" have vectors of their own (not kept): they do not fall back to "war" or
    # "do" + "n't"; "tax's" counts its "'s" because "tax" is a word of the file
    assert not before[0].any() and np.array_equal(before[4], rows["'s"])
    state = json.loads((tmp_path / "m" / "representation.json").read_text("utf-8"))
    assert state["kept_words"] == ["do", "n't", "'s", "war", "it", "army", "is"]


def test_save_replaces_whole_folder_and_leaves_no_temporary(fitted, tmp_path, monkeypatch):
    representation, X, y, _ = fitted["bow"]
    classifier = fitting.fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, X, y)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "old.txt").write_text("old")
    save_conventional(tmp_path / "m", representation, classifier, CATEGORIES, {"v": 2})
    assert not (tmp_path / "m" / "old.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]
    info = json.loads((tmp_path / "m" / MODEL_FILE).read_text("utf-8"))
    assert info["format_version"] == FORMAT_VERSION and info["representation"]["kind"] == "bow"
    assert "scikit-learn" in info["libraries"] and info["classifier"]["kind"] == "logistic_regression"

    class Boom(BaseException):
        pass

    def fail(*args, **kwargs):
        raise Boom

    monkeypatch.setattr("skops.io.dumps", fail)  # interrupted half-way through the save
    with pytest.raises(Boom):
        save_conventional(tmp_path / "m", representation, classifier, CATEGORIES, {"v": 3})
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]
    assert load_conventional(tmp_path / "m").meta == {"v": 2}


# ------------------------------------------------------------------------------- refusals
@pytest.fixture
def saved_folder(fitted, tmp_path):
    representation, X, y, _ = fitted["bow"]
    classifier = fitting.fit_classifier("svm", {"kernel": "linear", "C": 1.0}, 0, 1, X, y,
                                        probabilities=True)
    folder = tmp_path / "model"
    save_conventional(folder, representation, classifier, CATEGORIES, {})
    return folder


class MakesMarker:
    """Unpickling this creates the marker file: the proof that code ran."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _restamp(folder, name: str) -> None:
    """Make model.json's checksum agree with a replaced file, as an attacker would."""
    import hashlib

    info = json.loads((folder / MODEL_FILE).read_text("utf-8"))
    info["files"][name] = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    (folder / MODEL_FILE).write_text(json.dumps(info), "utf-8")


def test_pickle_payload_is_refused_without_running(saved_folder, tmp_path):
    marker = tmp_path / "marker.txt"
    payload = pickle.dumps(MakesMarker(str(marker)))
    pickle.loads(payload)  # the payload really works …
    assert marker.exists()
    marker.unlink()
    (saved_folder / SKOPS_FILE).write_bytes(payload)  # … hidden under the skops name
    _restamp(saved_folder, SKOPS_FILE)
    with pytest.raises(UserError, match="pickle") as caught:
        load_conventional(saved_folder)
    assert caught.value.hint and not marker.exists()


@pytest.mark.parametrize("name", ["model.pkl", "classifier.joblib"])
def test_pickle_and_joblib_files_are_refused(saved_folder, tmp_path, name):
    marker = tmp_path / "marker.txt"
    if name.endswith(".joblib"):
        joblib.dump(MakesMarker(str(marker)), saved_folder / name, compress=3)
    else:
        (saved_folder / name).write_bytes(pickle.dumps(MakesMarker(str(marker)), protocol=0))
    with pytest.raises(UserError, match="pickle"):
        load_conventional(saved_folder)
    assert not marker.exists()


def test_untrusted_skops_types_are_refused(saved_folder, tmp_path):
    import skops.io

    marker = tmp_path / "marker.txt"
    (saved_folder / SKOPS_FILE).write_bytes(skops.io.dumps({"model": MakesMarker(str(marker))}))
    _restamp(saved_folder, SKOPS_FILE)
    with pytest.raises(UserError, match="does not open") as caught:
        load_conventional(saved_folder)
    assert "MakesMarker" in caught.value.details and not marker.exists()


def test_newer_format_is_refused(saved_folder):
    info = json.loads((saved_folder / MODEL_FILE).read_text("utf-8"))
    info["format_version"] = FORMAT_VERSION + 1
    (saved_folder / MODEL_FILE).write_text(json.dumps(info), "utf-8")
    with pytest.raises(UserError, match="newer version of TextLab") as caught:
        load_conventional(saved_folder)
    assert "Update TextLab" in caught.value.hint


@pytest.mark.parametrize("damage", ["no folder", "no model.json", "model.json garbage",
                                    "missing file", "changed file", "bad state", "bad arrays",
                                    "not textlab"])
def test_missing_or_damaged_files_are_refused(saved_folder, damage):
    state = saved_folder / "representation.json"
    if damage == "no folder":
        shutil.rmtree(saved_folder)
    elif damage == "no model.json":
        (saved_folder / MODEL_FILE).unlink()
    elif damage == "model.json garbage":
        (saved_folder / MODEL_FILE).write_bytes(b"{\"format\": \"textl")
    elif damage == "missing file":
        (saved_folder / SKOPS_FILE).unlink()
    elif damage == "changed file":
        (saved_folder / SKOPS_FILE).write_bytes((saved_folder / SKOPS_FILE).read_bytes()[:-10])
    elif damage == "bad state":
        content = json.loads(state.read_text("utf-8"))
        content["vocabulary"] = content["vocabulary"][:-1]  # no longer fits the idf weights
        state.write_text(json.dumps(content), "utf-8")
        _restamp(saved_folder, state.name)
    elif damage == "bad arrays":
        (saved_folder / "representation.safetensors").write_bytes(b"\x10\x00\x00\x00garbage")
        _restamp(saved_folder, "representation.safetensors")
    elif damage == "not textlab":
        (saved_folder / MODEL_FILE).write_text(json.dumps({"format": "other"}), "utf-8")
    with pytest.raises(UserError) as caught:
        load_conventional(saved_folder)
    assert caught.value.message and caught.value.hint
