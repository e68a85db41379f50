"""A language model with your codebook answers through public methods: :meth:`CodebookModel.answer`
(new texts after a study, where a text that is one of the examples is answered rather than refused)
and :attr:`CodebookModel.device` / :attr:`CodebookModel.on_gpu` (where the opened model computes),
inside TextLab on a tiny random causal LM and on the test language-model server."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.models.llm.codebook_model import release_language_model
from guiapp.core.models.llm.prompt_examples import ExampleAmongScoredTexts
from tests.core.models.llm.test_codebook_model import (  # noqa: F401 (lm_folder is a fixture)
    TEST,
    TRAIN,
    TRAIN_LABELS,
    TRAIN_ROWS,
    here,
    lm_folder,
    on_server,
)
from tests.core.models.llm.test_server_client import chat_server, served  # noqa: F401 (a fixture)


@pytest.fixture(autouse=True)
def fresh_models():
    codebook_model_module._OPENED.clear()
    yield
    release_language_model()


def test_answer_refuses_an_example_unless_allowed_and_otherwise_equals_predict_proba(lm_folder):  # noqa: F811
    model = here(lm_folder, k=1, seed=4).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
    example = model.examples[0].text
    with pytest.raises(ExampleAmongScoredTexts):
        model.answer([example, TEST[0]])
    answered = model.answer([example, *TEST], allow_examples=True)
    assert answered.shape == (1 + len(TEST), 3)
    np.testing.assert_allclose(answered.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(answered[1:], model.predict_proba(TEST), atol=1e-9)
    with pytest.raises(ExampleAmongScoredTexts):  # the study's check still holds for predict_proba
        model.predict_proba([example])


def test_the_device_is_known_once_the_model_is_opened_and_forgotten_when_let_go(lm_folder):  # noqa: F811
    model = here(lm_folder, k=0)
    assert model.device is None and not model.on_gpu  # not opened before it first answers
    model.answer(TEST[:1])
    kind, name = model.device
    assert kind == "cpu" and name and not model.on_gpu
    release_language_model()
    assert model.device is None


def test_on_a_server_answer_allows_examples_and_there_is_no_device(served):  # noqa: F811
    with chat_server(served) as url:
        model = on_server(url, k=1, seed=2).fit(TRAIN, TRAIN_LABELS, TRAIN_ROWS)
        example = model.examples[0].text
        with pytest.raises(ExampleAmongScoredTexts):
            model.answer([example])
        answered = model.answer([example, TEST[0]], allow_examples=True)
        assert answered.shape == (2, 3)
        np.testing.assert_allclose(answered.sum(axis=1), 1.0, atol=1e-9)
        assert model.device is None and not model.on_gpu
