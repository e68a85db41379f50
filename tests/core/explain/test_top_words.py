"""The "top words" cell of each prediction of new texts, and the exported column that carries it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.events import Cancelled, Progress
from guiapp.core.explain.choose_method import explain_document
from guiapp.core.explain.top_words import add_top_words, is_quick, quick_in_result, slow_models, top_words_for
from guiapp.core.export.prediction_files import write_predictions
from guiapp.core.predict.new_texts import predict_new_texts
from tests.core.explain.conventional_samples import CLASSIFIER_SETTINGS, KEYWORD, KeywordModel, planted_corpus, train

BOW = {"min_df": 0.0, "max_df": 0.9}


@pytest.fixture(scope="module")
def linear():
    texts, labels = planted_corpus(80)
    return train("bow", BOW, "logistic_regression", texts, labels, ["other", "keyword"], name="LR · BOW")


def test_each_cell_names_the_words_that_pushed_toward_the_predicted_category(linear):
    texts = ["Budget zebra defence army.", "", "Clinic care nurses program.", "   "]
    predicted, probabilities = linear.answer(texts)
    predicted = np.where([bool(t.strip()) for t in texts], predicted, -1)
    cells = top_words_for(linear, texts, predicted, probabilities, k=3)
    assert cells[1] == "" and cells[3] == ""
    assert predicted[0] == 1 and cells[0].startswith("zebra (+")
    for row in (0, 2):
        attribution = explain_document(linear, texts[row], int(predicted[row]))
        assert cells[row] == attribution.top_words_text(3)
        words = [part.split(" (")[0] for part in cells[row].split(", ") if part]
        assert 0 < len(words) <= 3 and all(word.lower() in texts[row].lower() for word in words)
    assert is_quick(linear) and slow_models([linear]) == []


def test_slow_models_are_named_and_cancel_stops_between_texts():
    model = KeywordModel()  # answers only: explained by leaving words out
    assert not is_quick(model) and slow_models([model]) == [model.name]
    texts = ["a great day", "a good day", "a day"] * 5
    predicted, probabilities = model.answer(texts)
    cells = top_words_for(model, texts[:2], predicted[:2], probabilities[:2])
    assert cells[0].startswith("great (+") and cells[1].startswith("good (+")

    seen = []

    def cancel_after_three(event):
        if isinstance(event, Progress) and event.done is not None:
            seen.append(event.done)
            if event.done >= 3:
                raise Cancelled()

    with pytest.raises(Cancelled):
        top_words_for(model, texts, predicted, probabilities, on_event=cancel_after_three)
    assert max(seen) == 3


def test_the_exported_file_carries_one_top_words_column_per_model(linear, tmp_path):
    table = pd.DataFrame({"id": [1, 2, 3], "text": [f"Army {KEYWORD} budget.", "", "Clinic nurses care."]})
    texts = table["text"].tolist()
    found = predict_new_texts([linear, KeywordModel()], texts)
    add_top_words(found, [linear, KeywordModel()], texts)
    assert [len(cells) for cells in found.top_words] == [3, 3]
    path = write_predictions(tmp_path / "predicted.csv", table, found)
    back = pd.read_csv(path, keep_default_na=False)
    assert list(back.columns[:3]) == ["Row in your spreadsheet", "id", "text"]
    assert back["LR · BOW: top words"].tolist() == found.top_words[0]
    assert back["keyword model: top words"].tolist()[1] == ""
    xlsx = write_predictions(tmp_path / "predicted.xlsx", table, found)
    sheet = pd.read_excel(xlsx, sheet_name="Predictions", engine="calamine")
    assert sheet["LR · BOW: top words"].iloc[0].startswith(f"{KEYWORD} (+")



PAIRS = [("bow", BOW, classifier) for classifier in ("logistic_regression", "svm", "svm_rbf", "naive_bayes", "xgboost")]
PAIRS += [("word_vectors", {"min_count": 2}, classifier)  # naive Bayes needs counts: never on word vectors
          for classifier in ("logistic_regression", "svm", "svm_rbf", "xgboost")]


@pytest.mark.parametrize(("representation", "options", "classifier"), PAIRS)
def test_the_result_side_rule_agrees_with_the_opened_model(representation, options, classifier):
    texts, labels = planted_corpus(60)
    model = train(representation, options, classifier, texts, labels, ["other", "keyword"])
    key = "svm" if classifier.startswith("svm") else classifier
    assert quick_in_result(representation, key, CLASSIFIER_SETTINGS[classifier]) == is_quick(model)
    assert not quick_in_result("sentence_embeddings", key, CLASSIFIER_SETTINGS[classifier])
    assert not quick_in_result("transformer", "transformer", {})
