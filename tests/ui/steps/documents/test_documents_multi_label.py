"""The Documents step where a text can have several categories: the coding and the answers list
their categories, an answer agrees only when it gives exactly the coded set, the filters find one
category's mistakes ("missed", "wrongly"), and the explanation panel explains the chance of a
category the researcher picks (by default the first one the model gave the text)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from guiapp.core.experiment.results.artefacts import model_folder_name
from guiapp.core.experiment.families.conventional_files import save_conventional
from guiapp.core.experiment.protocol.fitting import fit_classifier
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.explain.documents import NO_CATEGORY
from guiapp.core.features.bow import BagOfWords
from guiapp.core.study.sections import ModelSpec
from guiapp.ui.steps.documents.documents_page import SEVERAL_INTRO_TEXT, DocumentsPage
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.documents.documents_table import SEVERAL_CONFIDENCE_TIP
from guiapp.ui.steps.documents.explanation_panel import FIRST_CATEGORY, MODEL_ANSWER
from tests.core.explain.test_multi_label_explain import (
    MANIFESTO,
    manifesto_texts,
    multi_label_model,
    multi_label_result,
    multi_label_spec,
)
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import sample_result

CATEGORIES = list(MANIFESTO)
# what the model never read in training: coded, it is missed
UNSEEN = {"Economy": "the central bank must stay independent", "Health": "mental illness deserves the same care",
          "Environment": "we must protect the bees", "Foreign affairs": "peace talks need patient diplomacy"}


def harder(texts: list[str], truth: list[list[int]]) -> list[str]:
    """Test texts a model gets partly wrong, as real ones: some mention another topic in passing (not
    coded: the model may add it), some say a coded topic in words it never read (it may miss it)."""
    out = []
    for row, (text, codes) in enumerate(zip(texts, truth, strict=True)):
        if row % 5 == 1:
            other = CATEGORIES[(max(codes, default=0) + 1) % len(CATEGORIES)]
            text = text.rstrip(".") + f", although our opponents keep saying {MANIFESTO[other][row % 4]}."
        elif row % 7 == 3 and codes:
            text = text[0].lower() + text[1:]
            for sentence in MANIFESTO[CATEGORIES[codes[-1]]]:
                text = text.replace(sentence, UNSEEN[CATEGORIES[codes[-1]]])
            text = text[0].upper() + text[1:]
        out.append(text)
    return out


def trained_manifesto_study(folder, n_test: int = 60) -> tuple[ExperimentResult, dict]:
    """A study where a text can have several categories, with one trained model saved in ``folder``
    (one logistic regression per category on manifesto-like texts) and one model without a folder;
    returns the result and the folders by model name."""
    texts, Y = manifesto_texts(300, seed=11)
    representation = BagOfWords(max_df=0.9, stop_words="english").fit(texts)
    classifier = fit_classifier("logistic_regression", {"C": 10.0}, 0, 1, representation.transform(texts), Y,
                                probabilities=True)
    result = multi_label_result(n_test)
    result.test_texts = harder(result.test_texts, result.test_true)
    trained = ModelSpec("bow", "logistic_regression")
    folder = folder / model_folder_name(trained.display_name)
    save_conventional(folder, representation, classifier, CATEGORIES, {"name": trained.display_name})
    X = representation.transform(result.test_texts)
    truth = np.zeros((n_test, len(CATEGORIES)), dtype=np.uint8)
    for row, codes in enumerate(result.test_true):
        truth[row, codes] = 1
    result.models[0] = multi_label_model(trained, truth, classifier.predict(X), classifier.predict_proba(X), str(folder))
    result.spec = multi_label_spec([trained, ModelSpec("bow", "svm")]).to_dict()
    return result, {trained.display_name: folder}


def column_texts(page, title: str) -> list[str]:
    model = page.documents
    column = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index(title)
    return [model.index(r, column).data() for r in range(model.rowCount())]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return trained_manifesto_study(tmp_path_factory.mktemp("models"))


@pytest.fixture
def page(qtbot, study):
    result, folders = study
    session = StudySession()
    view = DocumentsPage(session=session)
    qtbot.addWidget(view)
    view.resize(1400, 860)
    view.show()
    session.set_result(result, folders)
    yield view
    view.cancel_jobs()


def _sets(lists) -> list[set[str]]:
    return [{CATEGORIES[k] for k in codes} for codes in lists]


def test_the_coding_and_the_answers_list_their_categories(page, study):
    result, _ = study
    best = result.ranked()[0]
    assert page.intro_label.text() == SEVERAL_INTRO_TEXT
    coded = column_texts(page, "Your coding")
    answers = column_texts(page, f"{best.name}\nanswer")
    truth, given = _sets(result.test_true), _sets(best.predictions)
    for row in range(len(coded)):
        assert set(coded[row].split("; ")) == (truth[row] or {NO_CATEGORY})
        mark, _, shown = answers[row].partition(" ")
        assert set(shown.split("; ")) == (given[row] or {NO_CATEGORY})
        assert mark == ("✓" if given[row] == truth[row] else "✗")
    assert any(len(s) == 2 for s in truth) and any(not s for s in truth)
    model = page.documents
    wrong = next(row for row in range(len(answers)) if answers[row].startswith("✗"))
    column = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index(
        f"{best.name}\nanswer")
    tip = model.index(wrong, column).data(Qt.ItemDataRole.ToolTipRole)
    missed, added = truth[wrong] - given[wrong], given[wrong] - truth[wrong]
    assert ("It missed" in tip) == bool(missed) and ("wrongly added" in tip) == bool(added)
    assert all(f"“{name}”" in tip for name in missed | added)
    assert SEVERAL_CONFIDENCE_TIP in model.headerData(column + 1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)


def test_only_mistakes_and_one_categorys_mistakes(page, study, qtbot):
    result, _ = study
    best = result.ranked()[0]
    truth, given = _sets(result.test_true), _sets(best.predictions)
    filters = page.filters
    assert filters.mistake_box.isVisible()
    filters.mistakes_box.setChecked(True)
    assert page.documents.rowCount() == sum(1 for t, g in zip(truth, given, strict=True) if t != g)
    filters.clear_filters()
    found = 0
    for category in CATEGORIES:
        for kind, expected in (("missed", lambda t, g, c=category: c in t - g),
                               ("wrongly", lambda t, g, c=category: c in g - t)):
            filters.set_mistake(kind, category)
            assert filters.mistake_combo.currentText() == f"{kind} {category}"
            rows = page.shown_documents()
            assert rows == [i for i, (t, g) in enumerate(zip(truth, given, strict=True)) if expected(t, g)]
            assert all(answer.startswith("✗") for answer in column_texts(page, f"{best.name}\nanswer"))
            found += len(rows)
    assert found >= 10
    filters.clear_filters()
    assert page.documents.rowCount() == len(truth)
    # "Your coding" keeps the texts that have the category among others; or those coded with none
    filters.human_combo.setCurrentIndex(filters.human_combo.findData("Economy"))
    assert page.shown_documents() == [i for i, t in enumerate(truth) if "Economy" in t]
    filters.human_combo.setCurrentIndex(filters.human_combo.findData(NO_CATEGORY))
    assert page.shown_documents() == [i for i, t in enumerate(truth) if not t]
    filters.clear_filters()
    filters.predicted_combo.setCurrentIndex(filters.predicted_combo.findData("Environment"))
    assert page.shown_documents() == [i for i, g in enumerate(given) if "Environment" in g]


def test_the_mistake_filter_stays_hidden_with_one_category_per_text(qtbot):
    view = DocumentsPage()
    qtbot.addWidget(view)
    view.show()
    view.show_result(sample_result())
    assert not view.filters.mistake_box.isVisible()
    assert view.filters.current_filter().missed is None and view.filters.human_combo.findData(NO_CATEGORY) < 0


def test_a_document_is_explained_toward_the_category_chosen(page, study, qtbot):
    result, _ = study
    best = result.ranked()[0]
    panel = page.explanations
    assert panel.category_combo.itemText(0) == FIRST_CATEGORY != MODEL_ANSWER
    assert panel.chance_label.isVisibleTo(panel) and panel.choose_label.text() == "give"
    document = next(i for i, codes in enumerate(best.predictions) if len(codes) == 2 and
                    set(codes) != set(result.test_true[i]))
    page.filters.set_mistake("wrongly", CATEGORIES[next(k for k in best.predictions[document]
                                                         if k not in result.test_true[document])])
    assert page.select_document(document)
    qtbot.waitUntil(lambda: panel.explanation is not None and not panel.is_busy(), timeout=30000)
    found = panel.explanation.attribution
    first = best.predictions[document][0]
    assert found.target == first and found.target_name == CATEGORIES[first]  # the first category it gave
    assert found.probability == pytest.approx(best.probabilities[document][first], abs=1e-3)
    assert "chance of this category alone" in found.method_sentence
    heading = page.heading_label.text()
    assert "you coded it" in heading
    answer_row = page.answers()[0]
    assert "✗" in answer_row[3]
    save_screenshot(page, "documents_multi_label")

    other = next(k for k in range(len(CATEGORIES)) if k not in best.predictions[document])
    panel.category_combo.setCurrentIndex(panel.category_combo.findData(other))
    panel.explain_current()
    qtbot.waitUntil(lambda: panel.explanation.attribution.target == other and not panel.is_busy(), timeout=30000)
    assert panel.explanation.attribution.probability < 0.5  # a category it did not give: a low chance
    save_screenshot(page, "documents_multi_label_other_category")


def test_explain_all_explains_each_category_given(page, study, qtbot):
    result, _ = study
    best = result.ranked()[0]
    panel = page.explanations
    assert page.select_document(1)
    qtbot.waitUntil(lambda: panel.explanation is not None and not panel.is_busy(), timeout=30000)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.corpus is not None and not panel.is_busy(), timeout=60000)
    pairs = sum(len(codes) for codes in best.predictions)
    assert len(panel.corpus.documents) == pairs
    names = {name for *_, name in panel.corpus.documents}
    assert all(name.startswith("Row ") for name in names)
    words = panel.corpus.words
    for category in CATEGORIES:
        assert words.for_category(category, 1), category
    save_screenshot(page, "documents_multi_label_all")
