"""The self-test: does this installation have everything it needs, and does a tiny study run?

``textlab self-test`` (and Help → Self-test… in the app) calls :func:`run_self_test`. It loads
every bundled asset — the Transformer model and its tokenizer, the GloVe word vectors, the example
study with its licence and provenance note, the app icon — and, unless ``quick``, imports every
library TextLab loads on demand (``on_demand_imports``), runs a tiny study end to end with the
engine's own functions, one model of each family a study can tick over 200 rows of the example
(``run_experiment``; a language model with your codebook needs a language model TextLab does not
bundle, so only its libraries and its prompt are checked), and two fine-tuning steps of the bundled MiniLM on 32 texts (``fine_tune``). Each check gives one :class:`Check` as soon as it is done (``on_check``), so a
caller can show the lines as they come. Nothing is written outside a temporary folder.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, EventCallback, Progress, ignore_events
from guiapp.core.on_demand_imports import check_on_demand_imports

BUNDLED_TRANSFORMER = "all-MiniLM-L6-v2"
EXAMPLE_TEXT, EXAMPLE_CATEGORY, EXAMPLE_SHEET = "Title", "Topic", "Bills"
STUDY_ROWS_PER_TOPIC, STUDY_TOPICS = 50, 4  # 200 rows of the example's four largest topics
FINE_TUNE_TEXTS, FINE_TUNE_MAX_LENGTH, FINE_TUNE_BATCH = 32, 32, 16  # 32 / 16 = 2 steps


@dataclass
class Check:
    """One line of the self-test: what was checked, whether it passed, how long it took."""

    name: str
    ok: bool
    seconds: float
    reason: str = ""  # why it failed, in plain words ("" when it passed)
    detail: str = ""  # what was found, when it passed (e.g. "4,449 rows")

    def line(self) -> str:
        if self.ok:
            extra = f" ({self.detail})" if self.detail else ""
            return f"✓ {self.name}{extra} — {self.seconds:.1f} s"
        return f"✗ {self.name}: {self.reason}"


@dataclass
class SelfTestReport:
    checks: list[Check] = field(default_factory=list)
    quick: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def broken(self) -> list[str]:
        return [check.name for check in self.checks if not check.ok]

    def verdict(self) -> str:
        if self.ok:
            what = "every bundled file loads" if self.quick else "every bundled file loads and a tiny study runs"
            return f"All {len(self.checks)} checks passed: {what} ({self.seconds:.1f} s)."
        return f"{len(self.broken)} of {len(self.checks)} checks failed: {', '.join(self.broken)}."

    def to_dict(self) -> dict:
        return {"ok": self.ok, "quick": self.quick, "seconds": round(self.seconds, 3),
                "checks": [asdict(check) for check in self.checks], "verdict": self.verdict()}


# -- the checks -------------------------------------------------------------------------------------
def check_transformer() -> str:
    """The bundled all-MiniLM-L6-v2 and its tokenizer load and encode a sentence."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from guiapp.core.models.transformers.sources.resolve import bundled_model_path

    hf_logging.disable_progress_bar()  # no "Loading weights" bar between the self-test's lines
    path = bundled_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
    model = AutoModel.from_pretrained(path, local_files_only=True, use_safetensors=True, trust_remote_code=False)
    ids = tokenizer("A bill to amend the Internal Revenue Code.")["input_ids"]
    if len(ids) < 5:
        raise ValueError("the tokenizer gave no tokens")
    n_params = sum(p.numel() for p in model.parameters())
    return f"{n_params / 1e6:.1f} million weights, {tokenizer.vocab_size:,} tokens"


def check_word_vectors() -> str:
    """The bundled GloVe 6B 50-d vectors open and hold common words."""
    import numpy as np

    from guiapp.core.features.word_vector_files import open_word_vectors

    vectors = open_word_vectors()
    missing = [word for word in ("the", "bill", "health") if word not in vectors.index]
    if missing:
        raise ValueError(f"common words are missing: {', '.join(missing)}")
    if not np.isfinite(np.asarray(vectors.matrix[vectors.index["bill"]])).all():
        raise ValueError("the vectors hold numbers that are not finite")
    return f"{len(vectors.words):,} words × {vectors.dim} numbers"


def read_example():
    """The example's ``Bills`` sheet as a data frame (raises when it is missing or unreadable)."""
    from guiapp.core.locations import example_path
    from guiapp.core.tables.reader import read_table

    path = example_path()
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing")
    frame = read_table(path, EXAMPLE_SHEET).frame
    missing = [column for column in (EXAMPLE_TEXT, EXAMPLE_CATEGORY) if column not in frame.columns]
    if missing:
        raise ValueError(f"the sheet {EXAMPLE_SHEET} lacks the column(s) {', '.join(missing)}")
    return frame


def check_example() -> str:
    frame = read_example()
    return f"{len(frame):,} coded texts, {frame[EXAMPLE_CATEGORY].nunique()} categories"


def check_example_licence() -> str:
    from guiapp.core.locations import example_path

    folder = example_path().parent
    for name in ("LICENSE-GPL-3.0.txt", "README.md"):
        path = folder / name
        if not path.is_file() or path.stat().st_size < 100:
            raise FileNotFoundError(f"{name} is missing or empty in {folder}")
    if "GNU GENERAL PUBLIC LICENSE" not in (folder / "LICENSE-GPL-3.0.txt").read_text(encoding="utf-8"):
        raise ValueError("LICENSE-GPL-3.0.txt does not hold the GPL text")
    return "GPL-3.0 text and provenance note"


def check_icon() -> str:
    from guiapp.core.locations import icon_path

    sizes = [size for size in (16, 32, 256) if icon_path(size).is_file()]
    if not icon_path().is_file() or len(sizes) < 3:
        raise FileNotFoundError(f"icon files are missing in {icon_path().parent}")
    return "SVG and PNGs"


def _small_example(frame):
    """200 rows: 50 of each of the example's four largest topics (a fixed sample)."""
    topics = frame[EXAMPLE_CATEGORY].value_counts().index[:STUDY_TOPICS]
    parts = [frame[frame[EXAMPLE_CATEGORY] == topic].sample(STUDY_ROWS_PER_TOPIC, random_state=1) for topic in topics]
    import pandas as pd

    return pd.concat(parts).reset_index(drop=True)


def family_models():  # noqa: ANN201 — ModelSpecs
    """One small model of each family a study can tick (NLI zero-shot and a language model with your
    codebook aside: they need a downloaded model; the codebook's pieces are checked on their own by
    :func:`check_codebook_language_model`): a bag of words with naive Bayes and with XGBoost, averaged word vectors with an SVM,
    sentence embeddings with a logistic regression, zero-shot by similarity, and SetFit; the
    fine-tuned Transformer is its own check."""
    from guiapp.core.study.sections import ModelSpec

    return [
        ModelSpec(representation="bow", classifier="naive_bayes", grid={"alpha": [0.1, 1.0]}),
        ModelSpec(representation="bow", classifier="xgboost",
                  grid={"n_estimators": [20], "max_depth": [3], "learning_rate": [0.1]}),
        ModelSpec(representation="word_vectors", classifier="svm", grid={"kernel": ["linear"], "C": [1.0]}),
        ModelSpec(representation="sentence_embeddings", classifier="logistic_regression", grid={"C": [1.0]}),
        ModelSpec(representation="zero_shot", classifier="similarity"),
        ModelSpec(representation="setfit", classifier="setfit",
                  representation_options={"max_length": 32, "max_pairs": 200},
                  grid={"epochs": [1], "pairs_per_text": [2], "learning_rate": [2e-5]}),
    ]


def check_every_family(on_event: EventCallback = ignore_events) -> str:
    """A tiny study of 200 rows with one model of each family, through ``run_experiment`` (the
    cross-validation, the test texts, the combined models, saving): every model must end done."""
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.locations import example_path
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import EvaluationSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    table = _small_example(read_example())
    spec = ExperimentSpec(
        data=DataSpec(source=str(example_path()), sheet=EXAMPLE_SHEET,
                      mapping=ColumnMapping(text_columns=[EXAMPLE_TEXT], category_column=EXAMPLE_CATEGORY)),
        name="TextLab self-test",
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=100, combine=False),  # the families, not their votes
        models=family_models(),
    )
    with tempfile.TemporaryDirectory(prefix="textlab-self-test-") as folder:
        result = run_experiment(spec, on_event, table=table, n_jobs=1, artefacts_dir=folder)
    failed = [f"{model.name}: {model.message or model.status}" for model in result.models
              if model.status != "done" or model.test is None]
    if failed:
        raise ValueError("; ".join(failed))
    scores = ", ".join(f"{model.name} {model.test.macro_f1:.2f}" for model in result.models)
    return f"200 texts, {len(result.models)} models, test macro-F1: {scores}"


def check_codebook_language_model() -> str:
    """What a language model with your codebook needs that can be checked without a language model:
    the libraries that open and score a causal language model load, and the prompt builds from the
    example's categories. No such model is bundled (they are 0.5 GB and more), so the model itself is
    checked when a study first opens it (its folder, its kind, its weights' SHA-256); the line says so."""
    from guiapp.core.models.llm.codebook_prompt import CodebookPrompt

    frame = read_example()
    topics = frame[EXAMPLE_CATEGORY].value_counts().index[:STUDY_TOPICS].tolist()
    texts = frame[EXAMPLE_TEXT].astype(str).tolist()[:2]
    categories = [(str(topic), f"Bills about {str(topic).lower()}.", tuple(texts[:1])) for topic in topics]
    prompt = CodebookPrompt.build(categories, None, (), False)
    for topic, definition, _ in categories:
        if definition not in prompt.prompt(texts[1]):
            raise ValueError(f"the prompt does not hold the definition of “{topic}”")
    several = CodebookPrompt.build(categories, None, (), True)
    if len(several.questions()) != len(categories):
        raise ValueError("the yes/no questions per category are missing")
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: F401 — what opens the language model

    return (f"the libraries load and the prompt holds all {len(categories)} definitions; no language model is "
            "bundled, so yours is checked when a study first opens it")


def check_fine_tuning(on_event: EventCallback = ignore_events) -> str:
    """Two fine-tuning steps of the bundled MiniLM on 32 texts, then predictions for them."""
    import numpy as np

    from guiapp.core.models.transformers.fine_tuning import fine_tune, predict_proba
    from guiapp.core.models.transformers.sources.resolve import bundled_model_path
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    table = _small_example(read_example())
    rows = table.groupby(EXAMPLE_CATEGORY, sort=True).head(FINE_TUNE_TEXTS // STUDY_TOPICS)
    categories = sorted(rows[EXAMPLE_CATEGORY].unique())
    labels = np.array([categories.index(value) for value in rows[EXAMPLE_CATEGORY]], dtype=np.int64)
    texts = rows[EXAMPLE_TEXT].astype(str).tolist()
    settings = FineTuneSettings(epochs=1, batch_size=FINE_TUNE_BATCH, max_length=FINE_TUNE_MAX_LENGTH)
    tuned = fine_tune(bundled_model_path(), texts, labels, len(categories), settings, on_event)
    if not tuned.losses or not all(np.isfinite(tuned.losses)):
        raise ValueError(f"the training loss is not a number: {tuned.losses}")
    probabilities = predict_proba(tuned, texts[:4], on_event)
    if np.asarray(probabilities).shape != (4, len(categories)):
        raise ValueError("the fine-tuned model gave predictions of the wrong shape")
    return f"{len(tuned.losses)} steps on {tuned.device.name}, loss {tuned.losses[-1]:.2f}"


def _checks(quick: bool) -> list[tuple[str, Callable[..., str], bool]]:
    """(name, function, whether it takes ``on_event``) in the order they run."""
    checks: list[tuple[str, Callable[..., str], bool]] = [
        (f"bundled Transformer ({BUNDLED_TRANSFORMER}) and tokenizer load", check_transformer, False),
        ("word vectors (GloVe 6B, 50 dimensions) load", check_word_vectors, False),
        ("example study data reads", check_example, False),
        ("example data licence and provenance", check_example_licence, False),
        ("app icon", check_icon, False),
    ]
    if not quick:
        checks += [
            ("every library TextLab loads on demand imports", check_on_demand_imports, False),
            ("tiny study: every family a study can tick", check_every_family, True),
            ("language model with your codebook: libraries and prompt", check_codebook_language_model, False),
            (f"tiny study: fine-tuning {BUNDLED_TRANSFORMER} (2 steps)", check_fine_tuning, True),
        ]
    return checks


def plain_reason(error: BaseException) -> str:
    if isinstance(error, UserError):
        return error.message
    if isinstance(error, ImportError):
        return f"a package is missing ({error.name or error})"
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return text or type(error).__name__


def run_self_test(
    quick: bool = False,
    on_event: EventCallback = ignore_events,
    on_check: Callable[[Check], None] | None = None,
) -> SelfTestReport:
    """Run every check (only the assets when ``quick``); a failing check never stops the others.

    ``on_check`` gets each :class:`Check` as soon as it is done. Cancelling (``on_event`` raises
    :class:`Cancelled`) stops between and inside the study checks."""
    started = time.perf_counter()
    report = SelfTestReport(quick=quick)
    checks = _checks(quick)
    for number, (name, function, takes_events) in enumerate(checks):
        on_event(Progress(number / len(checks), f"Checking: {name}", number, len(checks)))
        begun = time.perf_counter()
        try:
            detail = function(on_event) if takes_events else function()
            check = Check(name, True, time.perf_counter() - begun, detail=detail)
        except Cancelled:
            raise
        except Exception as error:  # every failure becomes a line; the other checks still run
            check = Check(name, False, time.perf_counter() - begun, reason=plain_reason(error))
        report.checks.append(check)
        if on_check is not None:
            on_check(check)
    report.seconds = time.perf_counter() - started
    on_event(Progress(1.0, "Self-test finished", len(checks), len(checks)))
    return report

