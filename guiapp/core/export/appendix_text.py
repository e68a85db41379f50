"""The methods appendix in words: ``appendix_paragraph`` writes two paragraphs of plain academic
English from the dictionary of ``build_appendix``, for the researcher to adapt (the works it cites
are in ``appendix_references.py``).

Every number in the prose comes from that dictionary; a fact that is missing there is left out of
the prose rather than replaced by a guess.
"""

from __future__ import annotations

from typing import Any

from guiapp.core.export.appendix_codebook import codebook_sentences
from guiapp.core.export.appendix_coding_team import coding_team_paragraph
from guiapp.core.export.appendix_dates import date
from guiapp.core.export.appendix_references import REFERENCE

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
FRACTION_WORDS = {0.25: "one quarter", 0.5: "half", 1.0: "the size"}
CLASSIFIER_PHRASES = {
    "SVM": "an SVM",
    "XGBoost": "an XGBoost classifier",
    "Logistic regression": "a logistic regression",
    "Naive Bayes": "a naive Bayes classifier",
}
# packages worth naming in the prose, and when
PROSE_PACKAGES = ("scikit-learn", "xgboost", "imbalanced-learn", "torch", "transformers")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``three models``, ``1,204 texts``: small numbers as words, as journals ask."""
    word = NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else f"{n:,}"
    return f"{word} {noun if n == 1 else plural or noun + 's'}"


def score(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def interval(ci: list[float] | None, digits: int = 2) -> str:
    return f"{ci[0]:.{digits}f}–{ci[1]:.{digits}f}" if ci else ""


def percent(value: float) -> str:
    return f"{value * 100:.0f}%" if abs(value * 100 - round(value * 100)) < 1e-9 else f"{value * 100:.1f}%"




def model_phrase(model: dict[str, Any]) -> str:
    """``an SVM on a basic bag of words``, ``a fine-tuned Transformer (roberta-base)``."""
    classifier = model.get("classifier_label", model.get("classifier", "model"))
    representation = model.get("representation")
    pretrained = model.get("pretrained")
    if representation == "combined":
        return "a weighted vote of the models above" if model.get("classifier") == "weighted_vote" else (
            "a stacking of the models above")
    if representation == "transformer":
        return f"a fine-tuned Transformer ({pretrained})" if pretrained else "a fine-tuned Transformer"
    if representation in ("zero_shot", "setfit"):
        return few_shot_phrase(model)
    if representation == "codebook_llm":
        return codebook_phrase(model)
    classifier = CLASSIFIER_PHRASES.get(classifier, f"a {classifier} classifier")
    features = {
        "bow": "a basic bag of words",
        "word_vectors": f"averaged word vectors ({pretrained})" if pretrained else "averaged word vectors",
        "sentence_embeddings": f"sentence embeddings ({pretrained})" if pretrained else "sentence embeddings",
    }.get(representation or "", str(model.get("representation_label", representation)))
    return f"{classifier} on {features}"


def few_shot_phrase(model: dict[str, Any]) -> str:
    """``a zero-shot classifier by similarity to the category descriptions (all-MiniLM-L6-v2)``,
    ``a zero-shot NLI classifier (bart-large-mnli)``, ``SetFit (all-MiniLM-L6-v2)``."""
    pretrained = f" ({model['pretrained']})" if model.get("pretrained") else ""
    if model.get("representation") == "setfit":
        return f"SetFit{pretrained}"
    if model.get("classifier") == "nli":
        return f"a zero-shot NLI classifier{pretrained}"
    return f"a zero-shot classifier by similarity to the category descriptions{pretrained}"


def codebook_phrase(model: dict[str, Any]) -> str:
    """``a generative language model given our codebook (Qwen2.5-0.5B-Instruct, on a language-model server)``."""
    facts = model.get("codebook") or {}
    name = facts.get("language_model") or model.get("pretrained")
    where = ", on a language-model server" if facts.get("where") == "server" else ""
    return f"a generative language model given our codebook ({name}{where})" if name else (
        "a generative language model given our codebook")


def appendix_paragraph(appendix: dict[str, Any]) -> str:
    """Paragraphs separated by a blank line: models and data, the protocol, the results."""
    findings = appendix.get("findings") or {}
    team = coding_team_paragraph(appendix.get("coding_team"))
    return "\n\n".join(part for part in (*_design(appendix), team, _results(appendix), findings.get("paragraph", ""))
                       if part)


def _design(appendix: dict[str, Any]) -> tuple[str, str]:
    everything = appendix.get("models", [])
    models = [model for model in everything if model.get("representation") != "combined"]
    combined = [model for model in everything if model.get("representation") == "combined"]
    data, split, evaluation = appendix.get("data", {}), appendix.get("split", {}), appendix.get("evaluation", {})
    sentences = []
    phrases = [model_phrase(model) for model in models]
    if len(models) == 1:
        opening = f"We trained one model, {phrases[0]}, to reproduce our coding of the texts"
    else:
        opening = f"We compared {count(len(models), 'model')} for reproducing our coding of the texts: {_series(phrases)}"
    sentences.append(f"{opening}, following the protocol of {REFERENCE['key']}.")
    sentences.append(_data_sentence(data, split))
    sentences.append(_multi_label_sentence(data, evaluation))
    sentences.append(_split_sentence(data, split))
    first, sentences = sentences, []
    sentences.append(_tuning_sentence(models, evaluation))
    sentences.append(_threshold_sentence(evaluation))
    sentences.append(_measures_sentence(evaluation))
    sentences.append(_oversampling_sentence(evaluation))
    sentences.append(_transformer_sentence(models))
    sentences.append(_few_shot_sentences(models, appendix.get("evaluation", {})))
    sentences.append(codebook_sentences(models, appendix))
    sentences.append(_combined_sentence(combined))
    if "seed" in evaluation:
        sentences.append(f"All random steps used the seed {evaluation['seed']}.")
    sentences.append(_software_sentence(appendix))
    return " ".join(s for s in first if s), " ".join(s for s in sentences if s)


def _combined_sentence(combined: list[dict[str, Any]]) -> str:
    """How the combined models were built, in one or two sentences."""
    if not combined:
        return ""
    parts = combined[0].get("parts") or []
    texts = combined[0].get("learnt_on_texts")
    kinds = []
    for model in combined:
        if model.get("classifier") == "weighted_vote":
            kinds.append("a weighted average of their predicted probabilities (soft voting), with weights chosen by greedy "
                         "ensemble selection with replacement (Caruana et al., 2004) to maximise macro-F1")
        elif model.get("classifier") == "stacking":
            strength = model.get("stacking_C")
            kinds.append("a multinomial logistic regression on their probabilities (stacking), L2-regularised"
                         + (f" with C = {strength:g} chosen by cross-validation" if strength else ""))
    on = f" of {texts:,} training texts" if texts else " of the training texts"
    subject, verb = ("Both", "were") if len(kinds) > 1 else ("It", "was")
    return (f"We also combined the {count(len(parts), 'model')} into {count(len(combined), 'combined model')}: "
            f"{', and '.join(kinds)}. {subject} {verb} learnt from out-of-fold probabilities{on}, that is, for each "
            f"text from models fitted without it in the same cross-validation folds, and {verb} evaluated on the same "
            "test set as the single models.")


def _data_sentence(data: dict[str, Any], split: dict[str, Any]) -> str:
    coded, n_categories = data.get("coded_texts"), data.get("n_categories")
    if not coded:
        return ""
    what = f"The data comprised {coded:,} coded texts"
    if n_categories:
        what += f" in {count(n_categories, 'category', 'categories')}"
    if data.get("file") and split.get("how") != "test file":
        what += f" (file {data['file']})"
    return what + "."


def _multi_label_sentence(data: dict[str, Any], evaluation: dict[str, Any]) -> str:
    """That a text could have several categories, and how each kind of model learnt them."""
    facts, protocol = data.get("multi_label"), evaluation.get("multi_label")
    if facts is None and protocol is None:
        return ""
    facts, protocol = facts or {}, protocol or {}
    counts = []
    if "mean_categories_per_test_text" in facts:
        counts.append(f"{facts['mean_categories_per_test_text']:.2f} categories per test text on average")
    if facts.get("test_texts_without_category"):
        counts.append(f"{count(facts['test_texts_without_category'], 'test text')} without any")
    text = ("The coding was multi-label: a text could have several categories, or none"
            + (f" ({'; '.join(counts)})." if counts else "."))
    families = protocol.get("model_families", [])
    how = []
    if "conventional" in families:
        how.append("the conventional models learnt one binary classifier per category (one-vs-rest)")
    if "transformer" in families:
        how.append("the Transformers had one sigmoid output per category, trained with binary cross-entropy")
    if "zero_shot" in families:
        how.append("the zero-shot models gave each category its own probability")
    if "setfit" in families:
        how.append("SetFit learnt one logistic regression per category on its fine-tuned embeddings")
    if "codebook_llm" in families:
        how.append("the language models given the codebook were asked a yes/no question per category, the "
                   "probability of “yes” being the category's probability")
    if how:
        text += f" {_upper_first(_series(how))}."
    return text


def _threshold_sentence(evaluation: dict[str, Any]) -> str:
    protocol = evaluation.get("multi_label")
    if not protocol:
        return ""
    if protocol.get("thresholds") == "tuned":
        return ("A text was assigned a category when the model's probability for that category reached the category's "
                "threshold, chosen per category to maximise its F1 on the out-of-fold probabilities of the training "
                "texts (from the cross-validation), never on the test texts.")
    return ("A text was assigned every category whose predicted probability reached 0.5, each category decided "
            "independently.")


def _measures_sentence(evaluation: dict[str, Any]) -> str:
    if not (evaluation.get("multi_label") or {}).get("measures"):
        return ""
    return ("We report the macro-averaged F1 (the mean of the categories' F1 scores, each category counting "
            "equally), the micro-averaged F1 (F1 over all text–category decisions pooled, so that frequent categories "
            "weigh more), subset accuracy (the share of test texts whose set of categories was predicted exactly) and "
            "Hamming loss (the share of text–category decisions that were wrong).")


def _split_sentence(data: dict[str, Any], split: dict[str, Any]) -> str:
    how, n_train, n_test = split.get("how"), split.get("n_train"), split.get("n_test")
    if n_train is None or n_test is None:
        return ""
    if how == "random hold-out" and split.get("stratification"):  # several categories per text
        share = f"a random {percent(split['test_share'])} of the coded texts" if split.get("test_share") else (
            "a random sample of the coded texts")
        return (f"We set aside {share} ({n_test:,} texts) as the test set, drawn by {split['stratification']} so "
                f"that each category keeps its share, and used the remaining {n_train:,} texts for training.")
    if how == "random hold-out":
        share = f"a stratified random {percent(split['test_share'])} of the coded texts" if split.get("test_share") else (
            "a stratified random sample of the coded texts")
        return (f"We set aside {share} ({n_test:,} texts) as the test set, drawn within each category, "
                f"and used the remaining {n_train:,} texts for training.")
    if how == "split column":
        column = f" (column {split['split_column']})" if split.get("split_column") else ""
        return (f"The texts were split into {n_train:,} training and {n_test:,} test texts as marked in our data"
                f"{column}.")
    if how == "test file":
        train_file = f" in {data['file']}" if data.get("file") else ""
        test_file = f" ({split['test_file']})" if split.get("test_file") else ""
        return (f"The {n_train:,} coded texts{train_file} served as training data; a separate file of "
                f"{n_test:,} coded texts{test_file} served as the test set.")
    return f"The texts were split into {n_train:,} training and {n_test:,} test texts."


def _tuning_sentence(models: list[dict[str, Any]], evaluation: dict[str, Any]) -> str:
    folds = evaluation.get("folds")
    if not folds:
        return ""
    stratified = (f"{folds}-fold cross-validation (folds drawn by iterative stratification; Sechidis et al., 2011)"
                  if evaluation.get("multi_label") else f"stratified {folds}-fold cross-validation")
    text = (f"Hyperparameters were tuned by a grid search with {stratified} on the "
            "training set, selecting the setting with the highest mean macro-averaged F1; the chosen setting was "
            "refitted on the whole training set and evaluated once on the test set.")
    other = [m for m in models if m.get("tuning") and "cross-validation" not in m["tuning"]]
    for model in other:
        who = _transformer_words(model) if model.get("representation") == "transformer" else model["name"]
        text += f" For {who}, the setting was instead chosen on {model['tuning']}."
    return text


def _oversampling_sentence(evaluation: dict[str, Any]) -> str:
    if evaluation.get("oversampling") == "random" and evaluation.get("oversampling_ratio"):
        ratio = evaluation["oversampling_ratio"]
        size = FRACTION_WORDS.get(ratio, percent(ratio))
        target = "the size of the largest category" if ratio == 1.0 else f"{size} of the size of the largest category"
        return (f"To counter class imbalance, smaller categories were randomly oversampled to {target}, "
                "within the training part of each split only (never in a validation fold or the test set).")
    if evaluation.get("oversampling") == "off":
        return "Categories were not resampled to counter class imbalance."
    return ""


def _transformer_sentence(models: list[dict[str, Any]]) -> str:
    sentences = []
    for model in models:
        if model.get("representation") != "transformer":
            continue
        options = model.get("options", {})
        parts = ["AdamW", "a learning rate decaying linearly to zero without warm-up", "no weight decay"]
        if options.get("dropout") is not None:
            parts.append(f"dropout {options['dropout']:g}")
        if options.get("batch_size"):
            parts.append(f"batches of {options['batch_size']}")
        if options.get("max_length"):
            cut = {"head_tail": " (keeping the first 128 and the last 382 tokens of longer texts)",
                   "head": " (keeping the start of longer texts)",
                   "middle": " (removing tokens from the middle of longer texts)"}.get(options.get("truncation", ""), "")
            parts.append(f"at most {options['max_length']:,} tokens per text{cut}")
        sentences.append(f"{_upper_first(_transformer_words(model))} was fine-tuned with {_series(parts)}.")
    return " ".join(sentences)


def _few_shot_sentences(models: list[dict[str, Any]], evaluation: dict[str, Any]) -> str:
    """How each zero-shot and SetFit model was made, in a sentence or two each."""
    several = bool(evaluation.get("multi_label"))
    tuned = (evaluation.get("multi_label") or {}).get("thresholds") == "tuned"
    sentences = []
    for model in models:
        facts = model.get("few_shot")
        if not facts:
            continue
        if model.get("representation") == "setfit":
            sentences.append(_setfit_sentence(model, facts, several))
        else:
            sentences.append(_zero_shot_sentence(model, facts, several, tuned))
    return " ".join(sentences)


def _zero_shot_sentence(model: dict[str, Any], facts: dict[str, Any], several: bool, tuned: bool) -> str:
    name, language_model = model["name"], facts.get("language_model")
    template = facts.get("template", "")
    phrased = f"“{template.replace('{}', '[category]')}”" if template else "a sentence naming the category"
    if facts.get("kind") == "nli":
        how = (f"the natural-language-inference model {language_model} judged, for each text and each category, "
               f"whether the text entails {phrased}, with the category's description (or its name) in its place "
               "(Yin et al., 2019); "
               + ("each category's probability was its entailment against its contradiction" if several else
                  "the probabilities were a softmax over the categories' entailment scores"))
    else:
        temperature = facts.get("temperature")
        scale = f" divided by a temperature of {temperature:g}" if temperature else ""
        how = (f"the sentence model {language_model} embedded each text and, for each category, {phrased} with the "
               "category's name, averaged with the embedding of its description where it had one; "
               + (f"each category's probability was a logistic function of the cosine similarity minus its mean over "
                  f"the training texts{scale}" if several else
                  f"the probabilities were a softmax over the cosine similarities{scale}"))
    described = [item for item in facts.get("descriptions", []) if not item.get("by_name")]
    by_name = [item["category"] for item in facts.get("descriptions", []) if item.get("by_name")]
    parts = [f"{item['category']} as “{item['description']}”" for item in described]
    if by_name:
        parts.append(f"{_series(by_name)} by {'its' if len(by_name) == 1 else 'their'} name")
    descriptions = f" The categories were described as follows: {'; '.join(parts)}." if described else (
        " Each category was described by its name.")
    examples = facts.get("examples") or {}
    if examples:
        descriptions += (f" Example texts from the codebook ({sum(examples.values()):,} in all) were embedded with the "
                         "descriptions.")
    used = "and to choose each category's threshold" if tuned else ""
    return (f"{name} was a zero-shot classifier: it was not trained on any coded text; {how}.{descriptions} "
            f"The training texts were used only to score it on the same cross-validation folds as the other models"
            f"{' ' + used if used else ''}, and the test texts only to evaluate it.")


def _setfit_sentence(model: dict[str, Any], facts: dict[str, Any], several: bool) -> str:
    sentence_model = f" {facts['sentence_model']}" if facts.get("sentence_model") else ""
    details = []
    if facts.get("pairs_per_text"):
        details.append(f"{facts['pairs_per_text']} pairs of texts of the same category and as many of other "
                       "categories per coded text")
    if facts.get("pairs"):
        capped = isinstance(facts.get("max_pairs"), int) and facts["pairs"] >= facts["max_pairs"]
        details.append(f"of which {facts['pairs']:,} per epoch, the most allowed, were drawn at random" if capped
                       else f"{facts['pairs']:,} pairs per epoch on the training set")
    if facts.get("epochs"):
        details.append(count(int(facts["epochs"]), "epoch"))
    if facts.get("learning_rate"):
        details.append(f"a learning rate of {facts['learning_rate']:g}")
    head = facts.get("head") or "logistic regression"
    learnt = f"one {head} per category" if several else f"a {head}"
    cite = "(Tunstall et al., 2022)" if "SetFit" in model["name"] else "(SetFit; Tunstall et al., 2022)"
    return (f"{model['name']} {cite} fine-tuned the sentence model{sentence_model} "
            f"contrastively on pairs of coded texts" + (f" ({', '.join(details)})" if details else "")
            + f" and then learnt {learnt} on its embeddings of the training texts.")


def _transformer_words(model: dict[str, Any]) -> str:
    return f"the Transformer {model['pretrained']}" if model.get("pretrained") else f"the Transformer {model['name']}"


def _software_sentence(appendix: dict[str, Any]) -> str:
    software, hardware = appendix.get("software", {}), appendix.get("hardware", {})
    if not software.get("textlab"):
        return ""
    packages = software.get("packages", {})
    used = [f"{name} {packages[name]}" for name in PROSE_PACKAGES if name in packages and _uses(appendix, name)]
    if software.get("python"):
        used.insert(0, f"Python {software['python']}")
    text = f"The analysis was run with TextLab {software['textlab']}"
    if used:
        text += f" ({', '.join(used)})"
    machine = []
    if hardware.get("cpu_count"):
        machine.append(count(hardware["cpu_count"], "CPU core"))
    gpu = hardware.get("gpu") or next(iter(hardware.get("transformer_devices", [])), None)
    if gpu and gpu != "cpu" and not gpu.startswith("CPU"):
        machine.append(f"a {gpu} GPU")
    if machine:
        text += f" on a computer with {' and '.join(machine)}"
    when = date(appendix.get("study", {}).get("finished_at"))
    return text + (f", on {when}." if when else ".")


def _uses(appendix: dict[str, Any], package: str) -> bool:
    models = appendix.get("models", [])
    if package == "xgboost":
        return any(m.get("classifier") == "xgboost" for m in models)
    if package == "imbalanced-learn":
        return appendix.get("evaluation", {}).get("oversampling") == "random"
    if package in {"torch", "transformers"}:
        return any(m.get("representation") in {"transformer", "sentence_embeddings", "zero_shot", "setfit"}
                   or (m.get("representation") == "codebook_llm" and m.get("classifier") == "in_textlab")
                   for m in models)
    return True


def _results(appendix: dict[str, Any]) -> str:
    models = appendix.get("models", [])
    finished = sorted((m for m in models if "test" in m), key=lambda m: m["test"]["macro_f1"], reverse=True)
    failed = [m for m in models if m.get("status") == "failed"]
    n_test = appendix.get("split", {}).get("n_test")
    sentences = []
    if not finished:
        sentences.append("None of the models finished, so no test results are reported.")
    else:
        best = finished[0]
        on = f" on the {n_test:,} held-out test texts" if n_test else " on the held-out test texts"
        lead = f"The best model, {best['name']}," if len(finished) > 1 else f"{best['name']}"
        sentences.append(f"{lead} reached a macro-averaged F1 of {_with_ci(best['test'], appendix)}{on}"
                         + _other_scores(best["test"]))
        sentences.append(_weakest_category(best))
        others = finished[1:]
        if others:
            listed = [f"{_with_ci(m['test'], appendix, short=True, name=m['name'])}" for m in others]
            sentences.append(f"The other models reached {_series(listed)}.")
            sentences.append(_overlap_sentence(best, others[0]))
        sentences.append(_paired_sentence(appendix.get("comparisons") or {}))
        sentences.append(_curve_sentence(appendix.get("learning_curve") or {}))
    if failed:
        names = _series([m["name"] for m in failed])
        sentences.append(f"{names} could not be trained (see the model comparison table for the reason).")
    return " ".join(sentence for sentence in sentences if sentence)


def _other_scores(test: dict[str, Any]) -> str:
    """" (accuracy 0.71)." — or, where a text can have several categories, micro-F1, subset accuracy
    and Hamming loss."""
    if "micro_f1" in test:
        parts = [f"micro-F1 {score(test['micro_f1'])}"]
        if "accuracy" in test:
            parts.append(f"subset accuracy {score(test['accuracy'])}")
        if "hamming_loss" in test:
            parts.append(f"Hamming loss {score(test['hamming_loss'], 3)}")
        return f" ({', '.join(parts)})."
    return f" (accuracy {score(test['accuracy'])})." if "accuracy" in test else "."


def _curve_sentence(curve: dict[str, Any]) -> str:
    """The learning curve: on how many texts, and whether each model was still improving — as
    the numbers say, read by the plain reading's rule (``learning_curve_reading.trend_of``)."""
    if not curve.get("models"):
        return ""
    training = [model for model in curve["models"] if not model.get("axis")]
    examples = [model for model in curve["models"] if model.get("axis")]  # over examples per category
    sentences = []
    if training:
        sizes = [f"{size:,}" for size in curve["sizes"]]
        tuned = ("with hyperparameters tuned once and reused" if curve.get("tuning") == "once"
                 else "with hyperparameters tuned at each size")
        trends = " ".join(f"{_curve_trend(model)}." for model in training)
        which = ("each model" if not examples else "the other model" if len(training) == 1
                 else "each of the other models")
        sentences.append(f"A learning curve trained {which} on nested random subsets of {_series(sizes)} coded "
                         f"training texts ({count(int(curve.get('repeats') or 1), 'draw')} per size, {tuned}) and "
                         f"tested it on the same {int(curve.get('n_test') or 0):,} test texts. {trends}")
    if examples:
        ks = sorted({int(k) for model in examples for k in model["means"]})
        names = _series([model["name"] for model in examples])
        trends = " ".join(f"{_curve_trend(model, examples=True)}." for model in examples)
        sentences.append(f"{names}, which {'learns' if len(examples) == 1 else 'learn'} nothing from the coded texts, "
                         f"{'was' if len(examples) == 1 else 'were'} instead shown {_series([str(k) for k in ks])} "
                         f"coded examples per category in the prompt, drawn from all training texts "
                         f"({count(int(curve.get('repeats') or 1), 'draw')} of the examples per number), and tested "
                         f"on the same {int(curve.get('n_test') or 0):,} test texts. {trends}")
    return " ".join(sentences)


def _curve_trend(model: dict[str, Any], *, examples: bool = False) -> str:
    """"SVM rose from a mean macro-F1 of 0.49 with 80 texts to 0.59 with 639; over the last doubling
    (320 to 639 texts) the mean changed by +0.006 per doubling, less than the 0.01 taken to matter: it had
    levelled off"."""
    from guiapp.core.experiment.curves.learning_curve_reading import WORTH_A_DOUBLING, trend_of

    means = list(model["means"].items())
    (first_size, first), (last_size, last) = means[0], means[-1]
    unit = "examples per category" if examples else "texts"
    if score(first) == score(last):
        span = (f"{model['name']} stayed at a mean macro-F1 of about {score(first)} from {int(first_size):,} to "
                f"{int(last_size):,} {unit}")
    else:
        span = (f"{model['name']} {'rose' if last > first else 'fell'} from a mean macro-F1 of {score(first)} with "
                f"{int(first_size):,} {unit} to {score(last)} with {int(last_size):,}")
    gain, spread = model.get("gain_per_doubling"), model.get("spread_per_doubling")
    if gain is None or spread is None or "from_size" not in model:
        return span  # older facts without the last doubling: the numbers alone
    trend = trend_of(gain, spread)
    step = (f"over the last doubling ({int(model['from_size']):,} to {int(model['to_size']):,} {unit}) the mean "
            f"changed by {gain:+.3f} per doubling")
    if trend == "rising":
        return f"{span}; {step}, more than the spread between draws (±{spread:.3f}): it was still improving"
    if trend == "unclear":
        return (f"{span}; {step}, within the spread between draws (±{spread:.3f}), so whether it was still "
                "improving cannot be told")
    if trend == "falling":
        return f"{span}; {step}, a loss beyond the spread between draws (±{spread:.3f})"
    if abs(gain) < WORTH_A_DOUBLING:
        return (f"{span}; {step}, less than the {WORTH_A_DOUBLING:.2f} per doubling taken to matter: it had "
                "levelled off")
    return f"{span}; {step}, a loss within the spread between draws (±{spread:.3f}): it had levelled off"


def _paired_sentence(comparisons: dict[str, Any]) -> str:
    """McNemar's test of the best model against the runner-up, and the best model's agreement."""
    sentences = []
    pair = comparisons.get("best_vs_second")
    if pair and "difference" in pair:  # several categories per text: the paired bootstrap
        p = pair["p_holm"]
        shown = "p < 0.001" if p < 0.001 else f"p = {p:.2g}"
        verdict = "a difference unlikely to be due to chance" if p < 0.05 else "a difference compatible with chance"
        level = percent(pair.get("level") or 0.95)
        sentences.append(
            f"On the same test texts, the macro-F1 of {pair['best']} exceeded that of {pair['second']} by "
            f"{pair['difference']:.2f} ({level} CI {pair['difference_ci'][0]:.2f} to {pair['difference_ci'][1]:.2f}; "
            f"{verdict}; paired bootstrap over the test texts, {shown}, Holm-corrected for "
            f"{count(pair['n_pairs'], 'pairwise comparison')}).")
    elif pair:
        p = pair["p_holm"]
        shown = "p < 0.001" if p < 0.001 else f"p = {p:.2g}"
        verdict = "a difference unlikely to be due to chance" if p < 0.05 else "a difference compatible with chance"
        sentences.append(
            f"On the same test texts, {pair['best']} was right on {pair['only_best_right']:,} texts where "
            f"{pair['second']} was wrong, and {pair['second']} on {pair['only_second_right']:,} where {pair['best']} "
            f"was wrong ({verdict}; McNemar's test, {shown}, Holm-corrected for {count(pair['n_pairs'], 'pairwise comparison')}).")
    agreement = comparisons.get("best_agreement")
    if agreement:
        mean = "Averaged over the categories (each a yes/no coding), its" if agreement.get("mean_over_categories") else "Its"
        sentences.append(
            f"{mean} agreement with the human coding was Cohen's κ = {agreement['kappa']:.2f} "
            f"(95% CI {interval(agreement['kappa_ci'])}) and Krippendorff's α = {agreement['alpha']:.2f} "
            f"(95% CI {interval(agreement['alpha_ci'])}).")
    return " ".join(sentences)


def _with_ci(test: dict[str, Any], appendix: dict[str, Any], short: bool = False, name: str = "") -> str:
    value = score(test["macro_f1"]) + (f" for {name}" if name else "")
    if not test.get("macro_f1_ci"):
        return value
    level = percent(test.get("ci_level", 0.95))
    if short:
        return f"{value} ({level} CI {interval(test['macro_f1_ci'])})"
    samples = appendix.get("evaluation", {}).get("bootstrap_samples")
    resamples = f" from {samples:,} resamples of the test texts" if samples else ""
    return f"{value} ({level} bootstrap confidence interval {interval(test['macro_f1_ci'])}{resamples})"


def _overlap_sentence(best: dict[str, Any], second: dict[str, Any]) -> str:
    a, b = best["test"].get("macro_f1_ci"), second["test"].get("macro_f1_ci")
    if not a or not b:
        return ""
    if b[1] >= a[0]:
        return (f"The intervals of the best two models overlap, so the test texts do not clearly separate "
                f"{best['name']} from {second['name']}.")
    return f"The interval of {best['name']} lies above that of {second['name']}."


def _weakest_category(model: dict[str, Any]) -> str:
    scores = [c for c in model.get("per_category", []) if c.get("support")]
    if len(scores) < 2:
        return ""
    weakest, strongest = min(scores, key=lambda c: c["f1"]), max(scores, key=lambda c: c["f1"])
    return (f"Its F1 per category ranged from {score(weakest['f1'])} ({weakest['category']}, "
            f"{count(weakest['support'], 'test text')}) to {score(strongest['f1'])} ({strongest['category']}).")


def _series(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]
