"""The methods appendix's paragraph on a language model with your codebook: which language model
(its weights' SHA-256, or the server's model and digest), its runtime and number format, the prompt
and its hash, the examples (k per category, drawn with a seed only from the training texts of the
fold scored), how answers became probabilities, the prompt sensitivity, that its labels were
validated against the coding and never used as truth, and — where it happened — that the texts
left the computer. Every fact comes from the appendix's ``codebook`` facts
(``codebook_facts.codebook_appendix_facts``); one that is missing is left out of the prose.
"""

from __future__ import annotations

from typing import Any

from guiapp.core.export.appendix_dates import date

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def codebook_sentences(models: list[dict[str, Any]], appendix: dict[str, Any]) -> str:
    """A paragraph's sentences for each language model with the codebook among ``models``; "" for none."""
    chosen = [model for model in models if model.get("representation") == "codebook_llm" and model.get("codebook")]
    if not chosen:
        return ""
    when = date((appendix.get("study") or {}).get("finished_at"))
    sentences = [_one(model, when) for model in chosen]
    sentences.append("Following current advice on coding texts with language models (Törnberg, 2024; Halterman & "
                     "Keith, 2025), the language model's labels were validated against our coding of the held-out "
                     "test texts like every other model's and were never used as the true categories, since "
                     "labels from a language model treated as if they were true can bias later estimates (Egami et "
                     "al., 2023; Baumann et al., 2025).")
    return " ".join(sentences)


def _one(model: dict[str, Any], when: str) -> str:
    facts = model["codebook"]
    name = model["name"]
    parts = [_model_sentence(name, facts, when), _prompt_sentence(facts), _scoring_sentence(facts),
             _choice_sentence(model, facts), _sensitivity_sentence(facts), _outside_sentence(facts),
             _left_sentence(facts)]
    return " ".join(part for part in parts if part)


def _model_sentence(name: str, facts: dict[str, Any], when: str) -> str:
    language_model = facts.get("language_model", "a language model")
    details = []
    if facts.get("where") == "server":
        server = facts.get("runtime") or "a language-model server"
        if facts.get("server_model_digest"):
            details.append(f"model digest {facts['server_model_digest']}")
        if facts.get("quantisation"):
            details.append(f"quantisation {facts['quantisation']}")
        where = f", served by {server}" + (f" at {facts['server_address']}" if facts.get("server_address") else "")
    else:
        if facts.get("weights_sha256"):
            details.append(f"SHA-256 of its weights {facts['weights_sha256']}")
        if facts.get("number_format"):
            details.append(f"weights read as {facts['number_format']}")
        if facts.get("runtime"):
            details.append(f"run inside TextLab with {facts['runtime']}" + (f" on the {facts['device']}"
                                                                            if facts.get("device") else ""))
        where = ""
    described = f" ({'; '.join(details)})" if details else ""
    date = f" on {when}" if when else ""
    return (f"{name} coded the texts with a generative language model given our codebook (Gilardi et al., 2023; "
            f"Ziems et al., 2024): {language_model}{described}{where}, run{date}.")


def _prompt_sentence(facts: dict[str, Any]) -> str:
    k = facts.get("k")
    instruction = "our own instruction" if facts.get("own_instruction") else "TextLab's instruction"
    examples = ("no coded examples (zero-shot)" if k == 0 else
                f"{_count(k, 'coded example')} per category" if isinstance(k, int) else "")
    seeded = f", drawn with seed {facts['seed']}" if isinstance(facts.get("seed"), int) and k else ""
    described = facts.get("descriptions")
    some = isinstance(described, list) and isinstance(facts.get("n_categories"), int) and \
        len(described) < facts["n_categories"]
    definition = "with its definition from the codebook where it had one" if some or not described else \
        "with its definition from the codebook"
    sentence = (f"Its prompt held {instruction}, each category's name {definition}"
                + (f", and {examples}{seeded}" if examples else "") + ".")
    if k:
        sentence += (" The examples were drawn only from the training texts of the fold being scored, never from "
                     "the texts the model was scored on.")
    templates = facts.get("prompt_templates") or []
    if facts.get("prompt_sha256"):
        where = " (the full prompt template is listed with the settings below)" if templates else ""
        sentence += f" The prompt template's SHA-256 was {facts['prompt_sha256']}{where}."
    return sentence


def _scoring_sentence(facts: dict[str, Any]) -> str:
    several = bool(facts.get("multi_label"))
    if facts.get("where") == "server":
        temperature = facts.get("temperature")
        samples = facts.get("samples")
        text = ("The server was asked for an answer restricted to the categories (a JSON-schema list of the allowed "
                "answers); its log-probabilities gave each category's probability where the server returned them")
        if samples:
            text += (f", otherwise the shares of {_count(samples, 'answer')} per question"
                     + (f" at temperature {temperature:g}" if isinstance(temperature, int | float) else ""))
        text += "."
    else:
        text = ("Each category's name was scored as the continuation of the prompt (its log-likelihood, normalised "
                "by its length), and a softmax over the categories gave their probabilities.")
    if several:  # the yes/no question per category is said with how every model decided several categories
        text = text.replace("Each category's name was scored", "Each answer was scored").replace(
            "a softmax over the categories gave their probabilities", "a softmax over the answers gave their "
            "probabilities")
    return text


def _choice_sentence(model: dict[str, Any], facts: dict[str, Any]) -> str:
    chosen = model.get("chosen_text")
    grid = model.get("grid") or {}
    if not chosen:
        return ""
    tried = grid.get("k")
    over = f" (examples per category: {', '.join(str(v) for v in tried)})" if tried else ""
    return (f"The prompt variant{over} was chosen like any other setting, by its mean macro-F1 in cross-validation "
            f"on the training texts: {chosen}.")


def _sensitivity_sentence(facts: dict[str, Any]) -> str:
    sensitivity = facts.get("sensitivity")
    if not sensitivity:
        return ""
    n = len(sensitivity.get("prompts") or [])
    alpha = sensitivity.get("alpha")
    low, high = sensitivity.get("macro_f1_min"), sensitivity.get("macro_f1_max")
    text = (f"To report its prompt sensitivity (Törnberg, 2024), the test texts were also answered under "
            f"{_count(max(n - 1, 0), 'paraphrase')} of the instruction, the codebook and examples unchanged")
    numbers = []
    if isinstance(alpha, int | float):
        numbers.append(f"Krippendorff's α between the answers of the {_count(n, 'wording')} was {alpha:.2f}")
    if isinstance(low, int | float) and isinstance(high, int | float):
        numbers.append(f"their macro-F1 ranged from {low:.2f} to {high:.2f}")
    return text + (": " + "; ".join(numbers) if numbers else "") + "."


def _outside_sentence(facts: dict[str, Any]) -> str:
    outside = facts.get("outside_answers") or {}
    if not outside.get("outside"):
        return ""
    return (f"{outside['outside']:,} of the server's {outside['asked']:,} answers named none of the categories; "
            "they were counted and reported, not mapped to a category.")


def _left_sentence(facts: dict[str, Any]) -> str:
    if not facts.get("texts_left_computer"):
        return ""
    where = f" at {facts['server_address']}" if facts.get("server_address") else ""
    return (f"The texts were sent to a language-model server on another computer{where}, so they left the "
            "computer on which the analysis was run.")


def _count(n: int, noun: str) -> str:
    word = NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else f"{n:,}"
    return f"{word} {noun if n == 1 else noun + 's'}"
