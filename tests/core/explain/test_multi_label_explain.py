"""Explanations where a text can have several categories: each explanation is about one category's
own chance (its own yes/no classifier, its own sigmoid), by default the first category the model
gives the text, else its most probable one — for every way of explaining."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.experiment.combined.combining import Stacking, WeightedVote
from guiapp.core.experiment.protocol.fitting import fit_classifier
from guiapp.core.explain.attribution import COMBINED_PARTS, LINEAR_EXACT, OCCLUSION, TREE_SHAP
from guiapp.core.explain.batched_occlusion import explain_many_by_occlusion
from guiapp.core.explain.category_choice import default_target, default_targets
from guiapp.core.explain.category_parts import NOT_LEARNT
from guiapp.core.explain.choose_method import explain_document, explain_documents, method_for
from guiapp.core.explain.combined_contributions import stacking_slopes
from guiapp.core.explain.corpus_words import linear_coefficients
from guiapp.core.explain.explain_jobs import explain_all, explain_one
from guiapp.core.explain.linear_contributions import explain_linear, model_margin
from guiapp.core.explain.occlusion import explain_by_occlusion
from guiapp.core.explain.part_contributions import _score_weights, score_slopes
from guiapp.core.explain.top_words import top_words_for
from guiapp.core.explain.tree_contributions import explain_tree, tree_margin
from guiapp.core.features.bow import BagOfWords
from guiapp.core.predict.combined_model import CombinedModel
from guiapp.core.predict.trained_model import ConventionalModel

CATEGORIES = ["economy", "health", "schools"]
WORDS = {0: "tax", 1: "hospital", 2: "teacher"}  # each category's own word
FILLER = ["weather", "news", "today", "people", "city", "week"]


def label_sets(n: int = 120, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Each category's words mark it, on their own: a text can have none, one or several."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(np.uint8)
    texts = []
    for row in Y:
        words = [WORDS[k] for k in np.flatnonzero(row)] + list(rng.choice(FILLER, size=3))
        rng.shuffle(words)
        texts.append(" ".join(words))
    return texts, Y


def trained(classifier: str, params: dict, probabilities: bool = True, Y_change=None) -> ConventionalModel:
    texts, Y = label_sets()
    if Y_change is not None:
        Y = Y_change(Y.copy())
    representation = BagOfWords(max_df=0.95, stem_language=None).fit(texts)
    fitted = fit_classifier(classifier, params, 0, 1, representation.transform(texts), Y, probabilities=probabilities)
    return ConventionalModel(classifier, representation, fitted, CATEGORIES)


@pytest.fixture(scope="module")
def logistic():
    return trained("logistic_regression", {"C": 10.0})


TEXT = "tax hospital weather teacher news"  # one word of each category


def test_each_categorys_top_word_is_its_own_word_and_the_scores_add_up_to_its_own_score(logistic):
    model = logistic
    X = model.representation.transform([TEXT])
    for k, category in enumerate(CATEGORIES):
        found = explain_linear(model, TEXT, k)
        assert found.method == LINEAR_EXACT and found.target_name == category
        top = found.words[found.top_words(1)[0]].text
        assert top == WORDS[k].split()[0]  # "tax" for economy, "hospital" for health, "teacher" for schools
        # exact: the words plus the intercept are category k's own classifier's decision function
        part = model.classifier.parts[k]
        own_score = float(part.decision_function(X)[0])
        assert sum(found.scores) + found.base_value == pytest.approx(own_score, abs=1e-9)
        assert model_margin(model, TEXT, k) == pytest.approx(own_score, abs=1e-9)
        # the probability is the category's own chance (its sigmoid), not a share of a softmax
        assert found.probability == pytest.approx(1 / (1 + np.exp(-own_score)))
        assert found.probability == pytest.approx(model.answer([TEXT])[1][0, k])
        assert "chance of this category alone" in found.method_sentence
    chances = model.answer([TEXT])[1][0]
    assert chances.sum() > 1.5  # independent chances: the text is likely in all three


def test_the_default_category_is_the_first_predicted_else_the_most_probable(logistic):
    model = logistic
    decisions, chances = model.answer(["hospital teacher", "weather news today"])
    assert decisions[0].tolist() == [0, 1, 1] and not decisions[1].any()
    assert explain_document(model, "hospital teacher").target == 1  # health comes before schools
    assert explain_document(model, "weather news today").target == int(np.argmax(chances[1]))
    assert explain_one(model, "hospital teacher").attribution.target_name == "health"
    assert default_target(np.array([0, 0, 1]), np.array([0.9, 0.1, 0.6])) == 2
    assert default_target(np.array([0, 0, 0]), np.array([0.2, 0.45, 0.3])) == 1
    assert default_target(np.int64(2), None) == 2  # one category per text: the answer itself
    assert default_targets(np.array([[0, 1, 1], [0, 0, 0]]), np.array([[.1, .7, .8], [.3, .2, .4]])).tolist() == [1, 2]
    # explaining many texts without targets picks the same categories
    found = explain_documents(model, ["hospital teacher", "weather news today"])
    assert [a.target for a in found] == [1, int(np.argmax(chances[1]))]


def test_a_chosen_category_is_explained_even_when_not_predicted(logistic):
    found = explain_one(logistic, "hospital news", 0)  # economy: not predicted, its words are absent
    assert found.attribution.target_name == "economy"
    assert found.attribution.probability < 0.5
    assert found.faithfulness is None or found.faithfulness.category == "economy"


def test_leaving_words_out_drops_the_categorys_own_chance(logistic):
    model = logistic
    for k in range(3):
        one = explain_by_occlusion(model, TEXT, k)
        chances = model.answer([TEXT])[1][0]
        assert one.method == OCCLUSION and one.probability == pytest.approx(chances[k])
        words = [w.text for w in one.words]
        without = model.answer([TEXT.replace(WORDS[k].split()[0] + " ", "")])[1][0, k]
        first = words.index(WORDS[k].split()[0])
        assert one.scores[first] == pytest.approx(chances[k] - without, abs=1e-9)
        many = explain_many_by_occlusion(model, [TEXT], [k])[0]  # counts instead of texts: the same numbers
        assert many.scores == pytest.approx(one.scores, abs=1e-9)


def test_xgboost_per_category_trees_explain_each_categorys_own_score():
    model = trained("xgboost", {"n_estimators": 20, "max_depth": 2, "learning_rate": 0.3})
    assert method_for(model) == TREE_SHAP
    for k in range(3):
        found = explain_tree(model, TEXT, k)
        total = sum(found.scores) + found.base_value + found.details["absent_words_score"]
        assert total == pytest.approx(tree_margin(model, TEXT, k), abs=1e-4)
        assert found.words[found.top_words(1)[0]].text == WORDS[k].split()[0]
        assert found.probability == pytest.approx(1 / (1 + np.exp(-tree_margin(model, TEXT, k))), abs=1e-5)


def test_naive_bayes_per_category_is_the_log_odds_of_the_category_alone():
    model = trained("naive_bayes", {"alpha": 1.0})
    for k in range(3):
        found = explain_linear(model, TEXT, k)
        margin = model_margin(model, TEXT, k)
        assert sum(found.scores) + found.base_value == pytest.approx(margin, abs=1e-9)
        assert found.probability == pytest.approx(1 / (1 + np.exp(-margin)), abs=1e-9)


def test_a_category_learnt_as_a_constant_is_refused_in_words_or_left_out():
    def everyone_has_schools(Y):
        Y[:, 2] = 1
        return Y

    model = trained("logistic_regression", {"C": 10.0}, Y_change=everyone_has_schools)
    with pytest.raises(UserError, match="learnt no words") as caught:
        explain_linear(model, TEXT, 2)
    assert caught.value.args[0] == NOT_LEARNT
    assert method_for(model, target=2) == OCCLUSION  # automatic: nothing to decompose, no crash
    assert not any(explain_document(model, TEXT, 2).scores)
    assert "schools" not in linear_coefficients(model) and "economy" in linear_coefficients(model)
    # every text is given "schools" (the first category for some): its top words stay empty, not an error
    decisions, chances = model.answer(["weather news", "tax news"])
    cells = top_words_for(model, ["weather news", "tax news"], decisions, chances)
    assert cells[0] == "" and cells[1].startswith("economy: tax")


def test_an_svm_without_probabilities_is_explained_by_its_decisions():
    model = trained("svm", {"kernel": "rbf", "C": 1.0}, probabilities=False)
    decisions, chances = model.answer([TEXT])
    np.testing.assert_array_equal(chances, decisions)  # decisions count as certain
    assert method_for(model) == OCCLUSION
    found = explain_documents(model, [TEXT, "tax news"])  # counts: decisions where there are no chances
    assert found[0].target == default_target(decisions[0], chances[0])
    assert all(score in (-1.0, 0.0, 1.0) for score in found[1].scores)


def test_top_words_of_new_texts_name_the_category_they_explain(logistic):
    texts = ["hospital teacher", "", "weather news today", "tax news"]
    decisions, chances = logistic.answer([t for t in texts if t])
    predicted = np.full((4, 3), -1, dtype=np.int8)
    probabilities = np.full((4, 3), np.nan, dtype=np.float32)
    predicted[[0, 2, 3]], probabilities[[0, 2, 3]] = decisions, chances
    cells = top_words_for(logistic, texts, predicted, probabilities, k=2)
    assert cells[0].startswith("health: hospital")
    assert cells[1] == ""
    most_likely = CATEGORIES[int(np.argmax(chances[1]))]
    assert cells[2] == "" or cells[2].startswith(most_likely + ": ")
    assert cells[3].startswith("economy: ")


def test_explaining_all_documents_explains_each_predicted_category(logistic):
    texts, _ = label_sets(30, seed=5)
    texts = [*texts, "", "weather news today"]
    decisions = logistic.answer([t for t in texts if t])[0]
    found = explain_all(logistic, texts, CATEGORIES, top=5)
    expected_pairs = [(position, k) for position, text in enumerate(texts) if text
                      for k in np.flatnonzero(decisions[[p for p, t in enumerate(texts) if t].index(position)])]
    assert [(p, a.target) for p, (_, a, _) in zip(found.positions, found.documents, strict=True)] == expected_pairs
    assert all(text == texts[p] for p, (text, _, _) in zip(found.positions, found.documents, strict=True))
    assert found.unexplained == sum(1 for row in decisions if not row.any())
    assert found.words.n_documents == len(set(found.positions))
    for k, category in enumerate(CATEGORIES):
        words = found.words.for_category(category, min_documents=1)
        assert words and words[0].word in WORDS[k].split()  # each category's own words lead its list
        assert words[0].coefficient is not None and words[0].coefficient > 0


def test_per_category_slopes_are_the_gradient_of_the_weighed_chances(logistic):
    """For a combined model's part: ``score_slopes`` · weights is the gradient of direction · p, with
    each p_c its own sigmoid (finite differences of the classifier's own chances agree)."""
    part = logistic
    direction = np.array([0.3, -1.0, 0.5])
    x = part.representation.transform([TEXT]).toarray()
    p = part.answer([TEXT])[1][0]
    gradient = score_slopes(part, direction, p) @ _score_weights(part)
    for feature in np.flatnonzero(x[0])[:5].tolist() + [0]:
        up, down = x.copy(), x.copy()
        up[0, feature] += 1e-5
        down[0, feature] -= 1e-5
        numeric = direction @ part.classifier.predict_proba(up)[0] - direction @ part.classifier.predict_proba(down)[0]
        assert gradient[feature] == pytest.approx(numeric / 2e-5, rel=1e-4, abs=1e-9)


def test_per_category_stacking_slopes_match_finite_differences():
    rng = np.random.default_rng(1)
    n_parts, k = 2, 3
    parts = [rng.random((4, k)) for _ in range(n_parts)]
    combiner = Stacking(coefficients=rng.normal(0, 2, (k, n_parts * k)).tolist(), intercepts=rng.normal(0, 1, k).tolist(),
                        classes=list(range(k)), n_categories=k, C=1.0, multi_label=True)
    targets = np.array([0, 2, 1, 2])
    slopes = stacking_slopes(combiner, parts, targets)
    rows = np.arange(4)
    for part in range(n_parts):
        for c in range(k):
            up = [p.copy() for p in parts]
            down = [p.copy() for p in parts]
            up[part][:, c] += 1e-6
            down[part][:, c] -= 1e-6
            numeric = (combiner.combine(up)[rows, targets] - combiner.combine(down)[rows, targets]) / 2e-6
            assert slopes[:, part, c] == pytest.approx(numeric, abs=1e-7)


def test_a_vote_of_per_category_parts_explains_the_vote_of_their_chances(logistic):
    nb = trained("naive_bayes", {"alpha": 1.0})
    model = CombinedModel("vote", [logistic, nb], WeightedVote([0.6, 0.4]), CATEGORIES)
    assert model.multi_label
    found = explain_document(model, TEXT, 1)
    assert found.method == COMBINED_PARTS and found.target_name == "health"
    assert found.probability == pytest.approx(model.answer([TEXT])[1][0, 1])
    assert found.words[found.top_words(1)[0]].text == "hospital"
    default = explain_document(model, "hospital teacher")
    assert default.target == 1


def test_a_multi_label_transformer_is_explained_on_its_own_sigmoid(tmp_path):
    pytest.importorskip("captum")
    from guiapp.core.explain.probability_gradients import transformer_gradients
    from guiapp.core.explain.transformer_attributions import explain_transformer
    from guiapp.core.models.transformers.fine_tuning import fine_tune
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from guiapp.core.predict.trained_model import TransformerModel
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    texts, Y = label_sets(24, seed=2)
    vocabulary = sorted({word for text in texts for word in text.split()})
    folder = save_tiny_bert(tmp_path / "tiny", tiny_tokenizer(tmp_path / "vocabulary", vocabulary))
    settings = FineTuneSettings(device="cpu", max_length=32, learning_rate=1e-2, epochs=1, dropout=0.0)
    fine_tuned = fine_tune(folder, texts, Y, 3, settings)
    fine_tuned.thresholds = [0.0, 1.01, 1.01]  # the first category always, the others never
    model = TransformerModel("T", fine_tuned, CATEGORIES)
    assert model.multi_label
    chances = model.answer([TEXT])[1][0]
    found = explain_transformer(model, TEXT, None, steps=8)
    assert found.target == 0  # the first category it gives, whatever is most probable
    assert found.probability == pytest.approx(chances[0], abs=1e-5)
    logit = np.log(chances[2] / (1 - chances[2]))
    other = explain_transformer(model, TEXT, 2, steps=8)
    assert other.details["f_text"] == pytest.approx(logit, abs=1e-4)
    assert other.probability == pytest.approx(chances[2], abs=1e-5)
    fine_tuned.thresholds = [1.01, 1.01, 1.01]  # none given: the most probable
    assert explain_transformer(model, TEXT, None, steps=4).target == int(np.argmax(chances))
    # a Transformer part of a combined model: its weighed sigmoids, integrated from a text of blanks
    direction = np.array([[0.0, 1.0, 0.0]])
    gradients = transformer_gradients(model, [TEXT], direction, steps=16)[0]
    blank = explain_transformer(model, TEXT, 1, steps=16)
    blank_chance = 1 / (1 + np.exp(-blank.base_value))
    total = gradients.scores.sum() + gradients.special_tokens_score
    assert total == pytest.approx(chances[1] - blank_chance, abs=max(5 * gradients.delta, 2e-3))


# ----------------------------------------------------------------- the Documents step's table
MANIFESTO = {
    "Economy": ["we will cut taxes for small businesses", "wages must keep pace with prices",
                "the budget deficit has to come down", "public investment creates jobs"],
    "Health": ["every patient deserves a doctor within a week", "nurses need better pay",
               "we will build twenty new hospitals", "prescription drugs must become cheaper"],
    "Environment": ["we will plant a million trees", "coal plants must close by 2030",
                    "rivers and lakes need cleaner water", "solar panels belong on every school roof"],
    "Foreign affairs": ["we stand with our partners in NATO", "trade agreements need fair labour standards",
                        "our embassies must defend human rights", "development aid should reach the poorest"],
}


def manifesto_texts(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Manifesto-like sentences with none, one or two topics (a 0/1 matrix over MANIFESTO's topics)."""
    names = list(MANIFESTO)
    rng = np.random.default_rng(seed)
    truth = np.zeros((n, len(names)), dtype=np.uint8)
    texts = []
    for row in range(n):
        chosen = rng.choice(len(names), size=rng.choice([0, 1, 1, 1, 2, 2]), replace=False)
        truth[row, chosen] = 1
        parts = [str(rng.choice(MANIFESTO[names[k]])) for k in sorted(chosen)] or [
            str(rng.choice(["the weather was fine all week", "thank you all for coming tonight"]))]
        sentence = " and ".join(parts) + "."
        texts.append(sentence[0].upper() + sentence[1:])
    return texts, truth


def multi_label_spec(models):
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    mapping = ColumnMapping(text_columns=["Text"], id_column="ID", multi_label=True, category_columns=list(MANIFESTO))
    return ExperimentSpec(data=DataSpec(source="/home/user/manifestos.xlsx", mapping=mapping),
                          name="Manifestos, several topics", models=models)


def multi_label_model(model_spec, truth: np.ndarray, predicted: np.ndarray, chances: np.ndarray, artefact: str = ""):
    """A finished model's result where a text can have several categories, scored by the core."""
    from guiapp.core.experiment.scores.multilabel_metrics import multilabel_test_result
    from guiapp.core.experiment.results.experiment_result import ModelResult

    return ModelResult(
        name=model_spec.display_name, representation=model_spec.representation, classifier=model_spec.classifier,
        spec=model_spec.to_dict(), test=multilabel_test_result(truth, predicted, list(MANIFESTO), samples=50, seed=1),
        predictions=[np.flatnonzero(row).tolist() for row in predicted],
        probabilities=np.round(np.asarray(chances, dtype=float), 4).tolist(), thresholds=[0.5] * truth.shape[1],
        artefact=artefact)


def multi_label_result(n: int = 60, seed: int = 4):
    """A finished study where a text can have several categories: manifesto-like texts with none,
    one or two categories, and two models whose answers (sets of categories, independent chances)
    are right for most texts; the test scores come from the core's own metric functions."""
    from guiapp.core.experiment.results.experiment_result import ExperimentResult
    from guiapp.core.study.sections import ModelSpec

    texts, truth = manifesto_texts(n, seed)
    rng = np.random.default_rng(seed + 1)
    specs = [ModelSpec("bow", "logistic_regression"), ModelSpec("bow", "svm")]
    models = []
    for model_spec, flips in zip(specs, (0.06, 0.12), strict=True):
        wrong = rng.random(truth.shape) < flips
        predicted = np.where(wrong, 1 - truth, truth).astype(np.uint8)
        chances = np.where(predicted == 1, rng.uniform(0.55, 0.98, truth.shape), rng.uniform(0.02, 0.45, truth.shape))
        models.append(multi_label_model(model_spec, truth, predicted, chances))
    return ExperimentResult(
        spec=multi_label_spec(specs).to_dict(), categories=list(MANIFESTO),
        split={"how": "random", "n_train": n * 3, "n_test": n, "description": "25 % of the coded texts"},
        test_rows=list(range(2, n + 2)), test_ids=[f"M-{i:03d}" for i in range(n)], test_texts=texts,
        test_true=[np.flatnonzero(row).tolist() for row in truth], models=models,
        started_at="2024-05-02T10:14:03", finished_at="2024-05-02T10:21:47", multi_label=True)


def test_the_documents_table_shows_sets_of_categories_and_filters_each_categorys_mistakes():
    from guiapp.core.explain.documents import (
        HUMAN,
        NO_CATEGORY,
        PREDICTED,
        DocumentFilter,
        DocumentsTable,
        matching_rows,
        sort_rows,
    )

    result = multi_label_result()
    table = DocumentsTable.from_result(result)
    assert table.multi_label and table.human.shape == (60, 4)
    truth = np.zeros((60, 4), dtype=bool)
    for row, codes in enumerate(result.test_true):
        truth[row, codes] = True
    best = table.model(None)
    model_result = next(m for m in result.models if m.name == best.name)
    given = np.zeros((60, 4), dtype=bool)
    for row, codes in enumerate(model_result.predictions):
        given[row, codes] = True
    # an answer is right when its set of categories is exactly the coded set
    np.testing.assert_array_equal(best.correct, (given == truth).all(axis=1))
    assert not best.correct.all() and best.correct.any()
    errors = matching_rows(table, DocumentFilter(errors_only=True))
    np.testing.assert_array_equal(errors, np.flatnonzero((given != truth).any(axis=1)))
    economy = 0
    missed = matching_rows(table, DocumentFilter(missed="Economy"))
    np.testing.assert_array_equal(missed, np.flatnonzero(truth[:, economy] & ~given[:, economy]))
    wrongly = matching_rows(table, DocumentFilter(wrongly="Economy"))
    np.testing.assert_array_equal(wrongly, np.flatnonzero(given[:, economy] & ~truth[:, economy]))
    assert len(missed) + len(wrongly) > 0
    np.testing.assert_array_equal(matching_rows(table, DocumentFilter(predicted="Health")), np.flatnonzero(given[:, 1]))
    np.testing.assert_array_equal(matching_rows(table, DocumentFilter(human="Health")), np.flatnonzero(truth[:, 1]))
    np.testing.assert_array_equal(matching_rows(table, DocumentFilter(human=NO_CATEGORY)),
                                  np.flatnonzero(~truth.any(axis=1)))
    # what the reading pane shows: sets of names, and which categories were missed or added
    row = int(missed[0]) if len(missed) else int(wrongly[0])
    document = table.document(row)
    assert document.human == "; ".join(c for c, on in zip(result.categories, truth[row], strict=True) if on) or (
        document.human == NO_CATEGORY and not truth[row].any())
    answer = document.answers[0]
    assert not answer.correct and (("Economy" in answer.missed) or ("Economy" in answer.wrongly))
    # confidence: the probability of its least sure yes-or-no
    chances = np.asarray(model_result.probabilities)
    expected = np.where(given, chances, 1 - chances).min(axis=1)
    np.testing.assert_allclose(best.confidence, expected)
    # sorting by the coding and the answer sorts the lists of names alphabetically
    order = sort_rows(table, np.arange(60), HUMAN)
    labels = [table.human_label(i).casefold() for i in order]
    assert labels == sorted(labels)
    order = sort_rows(table, np.arange(60), PREDICTED + best.name, descending=True)
    labels = [table.answer_label(best, i).casefold() for i in order]
    assert labels == sorted(labels, reverse=True)


def test_missed_and_wrongly_also_read_one_category_per_text():
    from guiapp.core.explain.documents import DocumentFilter, DocumentsTable, matching_rows
    from tests.ui.sample_results import sample_result

    result = sample_result()
    table = DocumentsTable.from_result(result)
    answers = table.model(None)
    missed = matching_rows(table, DocumentFilter(missed="Health"))
    np.testing.assert_array_equal(missed, np.flatnonzero((table.human == 1) & (answers.predicted != 1)))
    wrongly = matching_rows(table, DocumentFilter(wrongly="Health"))
    np.testing.assert_array_equal(wrongly, np.flatnonzero((table.human != 1) & (answers.predicted == 1)))
    assert not table.multi_label and table.document(0).coded == ()


def test_per_category_regressions_on_sentence_embeddings_share_each_categorys_own_score(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from guiapp.core.explain.part_contributions import part_method
    from guiapp.core.explain.sentence_contributions import has_sentence_contributions, sentence_contributions
    from tests.core.explain.conventional_samples import train
    from tests.tiny_bert import save_tiny_bert, tiny_tokenizer

    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    texts, Y = label_sets(40, seed=3)
    words = sorted({word for text in texts for word in text.split()})
    folder = save_tiny_bert(tmp_path / "model", tiny_tokenizer(tmp_path / "tokenizer", words))
    model = train("sentence_embeddings", {"model": str(folder), "max_length": 32}, "logistic_regression", texts, Y,
                  CATEGORIES)
    assert model.multi_label and has_sentence_contributions(model) and part_method(model) == LINEAR_EXACT
    shares = sentence_contributions(model, [TEXT])[0]
    X = model.representation.transform([TEXT])
    for k, part in enumerate(model.classifier.parts):  # each category's own regression, toward "yes"
        total = shares.words[:, k].sum() + shares.special[k] + part.intercept_[0]
        assert total == pytest.approx(float(part.decision_function(X)[0]), abs=1e-5)


def test_a_combined_model_explains_by_its_own_tuned_thresholds():
    from guiapp.core.experiment.combined.combining import WeightedVote
    from guiapp.core.explain.category_choice import targets_from_probabilities
    from guiapp.core.predict.combined_model import CombinedModel

    class Part:
        multi_label = True
        categories = ["a", "b", "c"]

    model = CombinedModel("vote", [Part()], WeightedVote([1.0], thresholds=[0.9, 0.2, 0.5]), ["a", "b", "c"])
    assert list(model.thresholds) == [0.9, 0.2, 0.5]
    # "a" at 0.6 stays under its threshold 0.9, "b" at 0.3 reaches its 0.2: "b" is explained
    assert targets_from_probabilities(model, np.array([[0.6, 0.3, 0.1]])).tolist() == [1]
