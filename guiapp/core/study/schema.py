"""The study file's declared schema: which keys a spec may hold, of which kind, within which limits.

The pydantic models below are the one description of a study file: every setting's name, kind,
limits and default is declared here and nowhere else. The dataclasses the rest of TextLab uses
(``ExperimentSpec``, ``EvaluationSpec``, ``ColumnMapping`` …) take their fields from them, in the
order written here, which is the order of their positional arguments (``schema_section.py``).
``ExperimentSpec.from_dict`` (and so every door that opens a spec: the command line, the app,
projects) checks the raw dictionary against them before it builds those dataclasses, and
``study_json_schema()`` turns them into ``docs/study-schema.json`` for editors. A value that does
not fit becomes a :class:`SpecError` in plain words that names the key (``[evaluation] folds``),
the value given and what is allowed — never pydantic's own wording.

What the schema cannot know (which representations, classifiers, options and grid values exist)
is checked by ``ModelSpec.check`` against the registries of the features and models parts.
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from guiapp.core.errors import UserError
from guiapp.core.study.printable import printable

SCHEMA_VERSION = 1
SEED_MAX = 2**32 - 1  # numpy's and scikit-learn's largest seed
FORMAT_DOC = "docs/spec-format.md"

REPRESENTATION_LABELS: dict[str, str] = {
    "bow": "Basic BOW",
    "word_vectors": "Word vectors",
    "sentence_embeddings": "Sentence embeddings",
    "transformer": "Fine-tuned Transformer",
    "zero_shot": "Zero-shot",
    "setfit": "SetFit",
    "codebook_llm": "Language model with your codebook",
}
# the classifiers of the families that need few or no coded texts (representation zero_shot or setfit)
FEW_SHOT_CLASSIFIER_LABELS: dict[str, str] = {
    "similarity": "Similarity to the descriptions",
    "nli": "NLI",
    "setfit": "SetFit",
}
# where a language model with your codebook runs (representation codebook_llm)
CODEBOOK_LLM_CLASSIFIER_LABELS: dict[str, str] = {
    "in_textlab": "In TextLab",
    "server": "On a language-model server",
}
TRANSFORMER_TUNING_CHOICES = ("auto", "cross-validation", "validation split")
OVERSAMPLING_CHOICES = ("off", "random")
_MAX_PROBLEMS = 8


class SpecError(UserError):
    """A spec file that cannot be read or does not make sense."""


# --------------------------------------------------------------------------- value kinds


def _whole(value: Any) -> Any:
    """5.0 counts as 5 (some tools write every number with a point); 2.5 stays and is refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _choice(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def _grid_values(value: Any) -> Any:
    scalar = (bool, int, float, str)
    if isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(v, scalar) for v in value)):
        return value
    raise PydanticCustomError("grid_values", "a list of values")


def _file_name(value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise PydanticCustomError("nul_character", "a file name without a NUL character")
    return value


SHA256_PATTERN = r"^([0-9a-fA-F]{64})?$"
WholeNumber = Annotated[int, BeforeValidator(_whole)]
FileName = Annotated[str, AfterValidator(_file_name)]
_SCALAR_SCHEMA: dict[str, Any] = {"type": ["number", "string", "boolean"]}
GridValues = Annotated[
    Any,
    AfterValidator(_grid_values),
    WithJsonSchema({"anyOf": [{"type": "array", "items": _SCALAR_SCHEMA}, _SCALAR_SCHEMA]}),
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# --------------------------------------------------------------------------- the sections


class MappingSchema(_Section):
    """[data.mapping]: which columns of the table play which role."""

    text_columns: list[str] = Field(
        default_factory=list, examples=[["text"]],
        description="The column(s) holding the texts; several are joined with text_separator.",
    )
    category_column: str | None = Field(
        None, examples=["label"], description="The column with your coding (the category of each text).",
    )
    id_column: str | None = Field(None, examples=["id"], description="Optional: a column of IDs.")
    split_column: str | None = Field(
        None, examples=["split"], description="Optional: a column with train/test in every row.",
    )
    metadata_columns: list[str] = Field(
        default_factory=list, examples=[["party", "year"]],
        description="Optional: columns kept for group comparisons and exports.",
    )
    text_separator: str = Field(" ", description="Put between the parts when several text columns are joined.")
    multi_label: bool = Field(
        False, description="A text can have several categories: each category is a 0/1 (yes/no) column named in "
        "category_columns, or category_column lists a text's categories separated by label_separator.",
    )
    category_columns: list[str] = Field(
        default_factory=list, examples=[["economy", "health"]],
        description="With multi_label: one column per category, 1 (or yes) where the text has that category; "
        "values between 0 and 1 (averaged coders) count from 0.5.",
    )
    label_separator: str = Field(
        ";", min_length=1, description="With multi_label and a category_column: what separates a text's categories "
        "in that column (\"economy; health\").",
    )


class CategoryFixesSchema(_Section):
    """[data] category_fixes: fixes of the category column the study records (the table itself is
    never changed)."""

    trim_spaces: bool = Field(
        False, description="Remove spaces (also tabs, non-breaking and zero-width ones) at the start and end of categories.",
    )
    merge: dict[str, str] = Field(
        default_factory=dict, examples=[{"Democratic ": "Democratic"}],
        description="A category as written in the table → the category it becomes.",
    )
    leave_out: list[str] = Field(
        default_factory=list, examples=[["Other"]],
        description="Categories whose texts are not used (named as they are after merging and trimming).",
    )


class DataSchema(_Section):
    """[data]: where the coded texts come from."""

    source: FileName = Field(
        "", examples=["tweets.csv"],
        description="The table of coded texts; a relative path is relative to the study file's folder.",
    )
    sheet: str | None = Field(None, examples=["Sheet1"], description="Workbooks only: the sheet (default: the first).")
    sha256: str = Field("", pattern=SHA256_PATTERN,
                        description="The table's SHA-256 checksum when the study was set up: 64 hexadecimal "
                                    "characters (\"\" = not checked).")
    mapping: MappingSchema = Field(default_factory=MappingSchema, description="Which column plays which role.")
    test_source: FileName = Field("", examples=["test.csv"], description="Optional: a separate table of test texts.")
    test_sheet: str | None = Field(None, description="Workbooks only: the test table's sheet.")
    rows: int | None = Field(
        None, ge=0, examples=[1122], description="Optional: how many rows the table had when the study was saved.",
    )
    categories: list[str] | None = Field(
        None, examples=[["Red", "Blue"]],
        description="Optional: the categories of the category column when the study was saved.",
    )
    category_fixes: CategoryFixesSchema = Field(
        default_factory=CategoryFixesSchema,
        description="Optional: spelling variants merged, spaces trimmed, categories left out — recorded here, "
                    "never written into the table.",
    )


class EvaluationSchema(_Section):
    """[evaluation]: the shared protocol every model is tuned and tested with."""

    test_share: float = Field(
        0.3, ge=0.05, le=0.9, description="Share of coded texts held out for the test (a random stratified hold-out, "
        "used when there is neither a split column nor a test file).",
    )
    folds: WholeNumber = Field(5, ge=2, le=20, description="Cross-validation folds that choose each model's setting.")
    cv_repeats: WholeNumber = Field(
        1, ge=1, le=10, description="Repeated cross-validation: draw the folds this many times (r × k fits per setting).",
    )
    oversampling: Annotated[Literal["off", "random"], BeforeValidator(_choice)] = Field(
        "off", description="\"random\": grow smaller categories in the training parts only.",
    )
    oversampling_ratio: float = Field(
        0.25, gt=0.0, le=1.0, description="Smaller categories grow to this share of the largest.",
    )
    bootstrap_samples: WholeNumber = Field(
        1000, ge=0, le=100_000, description="Resamples of the test texts for the 95 % interval (0 = none).",
    )
    transformer_tuning: Annotated[
        Literal["auto", "cross-validation", "validation split"], BeforeValidator(_choice)
    ] = Field("auto", description="How a fine-tuned Transformer's setting is chosen (\"auto\": cross-validation on a "
              "GPU, one stratified validation split on a CPU).")
    validation_share: float = Field(0.2, ge=0.05, le=0.5, description="Share of training texts in that validation split.")
    transformer_choice: Annotated[
        Literal["cheapest within noise", "best score"], BeforeValidator(_choice)
    ] = Field("cheapest within noise", description="Among a Transformer's settings within one standard error of the "
              "best: the one that trains least (\"cheapest within noise\"), or always the top score (\"best score\", "
              "the paper's protocol).")
    transformer_seeds: WholeNumber = Field(
        1, ge=1, le=10, description="Fine-tune the chosen setting with this many seeds and average their probabilities.",
    )
    tune_thresholds: bool = Field(
        False, description="Studies where a text can have several categories: choose each category's decision "
        "threshold on the training texts' out-of-fold probabilities (never on the test texts) instead of 0.5.",
    )
    combine: bool = Field(
        True, description="Also build combined models (weighted vote, stacking) of the compared models.",
    )


class ClusterSchema(_Section):
    """[cluster]: where the study's pieces of work run — this computer (the default), any running Dask
    scheduler, or Dask workers started as jobs of a SLURM cluster (docs: README, "Run on a cluster")."""

    scheduler: str = Field("", description="Address of a running Dask scheduler, e.g. \"tcp://host:8786\" "
                           "(empty: this computer, or the cluster system below).")
    system: Annotated[Literal["", "slurm"], BeforeValidator(_choice)] = Field(
        "", description="\"slurm\": start Dask workers as SLURM jobs (run TextLab on the cluster's login node).",
    )
    workers: WholeNumber = Field(2, ge=1, le=1000, description="Worker jobs to start.")
    cores_per_worker: WholeNumber = Field(4, ge=1, le=256, description="Processor cores of each worker job.")
    gpus_per_worker: WholeNumber = Field(0, ge=0, le=16, description="GPUs of each worker job (0: none).")
    memory: str = Field("16GB", pattern=r"^\s*\d+(\.\d+)?\s*[KMGT]i?B\s*$",
                        examples=["16GB", "512MB"], description="Memory of each worker job, e.g. \"16GB\".")
    walltime: str = Field("04:00:00", pattern=r"^(\d+-)?\d{1,3}:\d{2}(:\d{2})?$",
                          examples=["04:00:00", "1-12:00:00"], description="Longest run of each worker job, as [days-]hours:minutes[:seconds].")
    queue: str = Field("", description="The partition (queue) to submit to (empty: the cluster's default).")
    account: str = Field("", description="The account the jobs are charged to (empty: your default).")
    setup: list[str] = Field(default_factory=list, description="Shell lines each worker job runs first, e.g. "
                             "\"module load cuda\" or \"source ~/textlab/bin/activate\".")
    python: str = Field("", description="The Python with TextLab installed on the cluster's nodes "
                        "(empty: the one running TextLab).")


class ModelSchema(_Section):
    """One [[models]] table: a representation of the texts × a classifier with its grid."""

    representation: Annotated[str, BeforeValidator(_choice)] = Field("bow", description="How texts become numbers.")
    classifier: Annotated[str, BeforeValidator(_choice)] = Field("svm", description="The classifier.")
    representation_options: dict[str, Any] = Field(
        default_factory=dict, description="Options of the representation; left out = default; \"none\" = off.",
    )
    grid: dict[str, GridValues] = Field(
        default_factory=dict, description="The settings to try, e.g. { C = [1, 10] }; left out = the default grid.",
    )
    name: str = Field("", description="Shown in the results (default: e.g. \"SVM · Basic BOW\").")


class StudySchema(_Section):
    """A TextLab study file (.toml or .json): the data, the evaluation protocol and the models."""

    model_config = ConfigDict(extra="forbid", strict=True, title="TextLab study file")

    data: DataSchema = Field(default_factory=DataSchema)
    name: str = Field("", description="The study's name.")
    seed: WholeNumber = Field(20210401, ge=0, le=SEED_MAX, description="One seed controls every random step.")
    evaluation: EvaluationSchema = Field(default_factory=EvaluationSchema)
    models: list[ModelSchema] = Field(default_factory=list, description="The models to compare.")
    cluster: ClusterSchema = Field(default_factory=ClusterSchema)
    schema_version: WholeNumber = Field(SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION, description="The file format's version.")
    json_schema: str | None = Field(
        None, alias="$schema", description="Editors only: where this schema is (JSON files).",
    )


# --------------------------------------------------------------------------- checking


def check_against_schema(schema: type[BaseModel], data: Any, where: tuple[str | int, ...] = ()) -> BaseModel:
    """``data`` validated by ``schema``; a :class:`SpecError` in plain words when it does not fit.

    ``where`` is the place of ``data`` in a whole study file (``("evaluation",)``), so that
    messages name the full key path."""
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        raise _plain_error(schema, error.errors(include_url=False), where) from None
    except RecursionError:
        raise nesting_error() from None


def nesting_error() -> SpecError:
    return SpecError(
        "The study file is nested too deeply (tables or lists inside each other many levels deep).",
        f"A study file needs only a few levels; see {FORMAT_DOC} for its shape.",
    )


def _plain_error(schema: type[BaseModel], errors: list[dict[str, Any]], where: tuple[str | int, ...]) -> SpecError:
    root = _json_schema_of(schema)
    problems: list[tuple[str, str]] = []
    unknown: dict[tuple, list[str]] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] == "extra_forbidden":
            unknown.setdefault(loc[:-1], []).append(str(loc[-1]))
            continue
        problems.append(_problem(error, loc, where, root))
    for parent, names in unknown.items():
        allowed = sorted(_node(root, parent).get("properties", {}))
        problems.insert(0, (
            f"Unknown setting(s) in {_section_name(where + parent)}: {', '.join(sorted(names))}.",
            f"Allowed here: {', '.join(allowed)}. Check the spelling.",
        ))
    if len(problems) == 1:
        return SpecError(*problems[0])
    shown = problems[:_MAX_PROBLEMS]
    more = f"\n• and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    hints = list(dict.fromkeys(hint for _, hint in shown if hint))
    return SpecError(
        f"The study file has {len(problems)} problems:\n" + "\n".join(f"• {text}" for text, _ in shown) + more,
        " ".join(hints[:3]),
    )


def _problem(error: dict[str, Any], loc: tuple, where: tuple, root: dict[str, Any]) -> tuple[str, str]:
    value = error.get("input")
    path = where + loc
    if error["type"] == "model_type" and not path:
        return ("The study file is not a table of settings.",
                f"A study file holds keys such as name, seed, [data] and [[models]]; see {FORMAT_DOC}.")
    node = _node(root, loc)
    allowed = _allowed(node, error)
    text = f"{location(path)} is {show_value(value)}, but it must be {allowed}."
    return text, _hint(path, value, node)


def location(path: tuple[str | int, ...]) -> str:
    """A key path in a reader's words: ``[evaluation] folds``, ``model 2 of [[models]]: grid.C``."""
    parts = list(path)
    if parts[:1] == ["models"] and len(parts) > 1 and isinstance(parts[1], int):
        rest = parts[2:]
        return f"model {parts[1] + 1} of [[models]]" + (f": {_keys(rest)}" if rest else "")
    if not parts:
        return "the study file"
    if len(parts) == 1:
        return f"[{parts[0]}]" if parts[0] in ("data", "evaluation") else str(parts[0])
    if isinstance(parts[-1], int):
        return f"{location(tuple(parts[:-1]))} (item {parts[-1] + 1})"
    return f"[{'.'.join(str(part) for part in parts[:-1])}] {parts[-1]}"


def _keys(parts: list[str | int]) -> str:
    text = ""
    for part in parts:
        text += f" (item {part + 1})" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _section_name(path: tuple) -> str:
    if not path:
        return "the top level of the study file"
    if path[0] == "models" and len(path) > 1 and isinstance(path[1], int):
        rest = ".".join(str(part) for part in path[2:])
        return f"model {path[1] + 1} of [[models]]" + (f" ({rest})" if rest else "")
    return "[" + ".".join(str(part) for part in path) + "]"


def show_value(value: Any, limit: int = 60) -> str:
    """A value as a person wrote it, with its kind where that is the point."""
    if isinstance(value, str):
        shown = value if len(value) <= limit else value[:limit] + "…"
        return f"\"{printable(shown)}\" (text in quotes)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "empty (null)"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return f"{_short(value, limit)} (a list)"
    if isinstance(value, dict):
        return f"{_short(value, limit)} (a table)"
    return repr(value)[:limit]


def _short(value: Any, limit: int) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = "[…]" if isinstance(value, list) else "{…}"
    return text if len(text) <= limit else text[:limit] + "…"


def _allowed(node: dict[str, Any], error: dict[str, Any]) -> str:
    if error["type"] == "grid_values":
        return "a value or a list of values, like [1, 10]"
    if error["type"] == "nul_character":
        return "a file name, which never holds the invisible NUL character (\\x00)"
    if error["type"] == "string_pattern_mismatch" and node.get("pattern") == SHA256_PATTERN:
        return "a SHA-256 checksum of exactly 64 hexadecimal characters (0–9, a–f), or empty (\"\")"
    if "enum" in node:
        return "one of: " + ", ".join(f"\"{choice}\"" for choice in node["enum"])
    kind = node.get("type")
    examples = node.get("examples") or []
    if kind == "integer":
        return "a whole number" + _range(node)
    if kind == "number":
        return "a number" + _range(node)
    if kind == "string" and error["type"] == "string_pattern_mismatch":
        return "written like " + " or ".join(f"\"{example}\"" for example in examples)
    if kind == "string":
        return "text in quotes" + (f", like \"{examples[0]}\"" if examples else "")
    if kind == "array":
        like = f", like {json.dumps(examples[0], ensure_ascii=False)}" if examples else ""
        return ("a list of names in quotes" if node.get("items", {}).get("type") == "string" else "a list") + like
    if kind == "object":
        return "a table of settings"
    if kind == "boolean":
        return "true or false"
    return "a value TextLab can use"


def _range(node: dict[str, Any]) -> str:
    def number(value: float) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    low, high = node.get("minimum"), node.get("maximum")
    above = node.get("exclusiveMinimum")
    if low is not None and low == high:
        return f": {number(low)}"
    if above is not None and high is not None:
        return f" above {number(above)} and at most {number(high)}"
    if low is not None and high is not None:
        return f" between {number(low)} and {number(high)}"
    if low is not None:
        return f" of at least {number(low)}"
    return ""


def _hint(path: tuple, value: Any, node: dict[str, Any]) -> str:
    key = str(path[-1]) if path and isinstance(path[-1], str) else (str(path[-2]) if len(path) > 1 else "")
    kind = node.get("type")
    if isinstance(value, str) and kind in ("integer", "number"):
        try:
            number = float(value.strip())
        except ValueError:
            return f"Write a number without quotes, e.g. {key} = {node.get('default', 1)}."
        if math.isfinite(number):
            return f"Write the number without quotes: {key} = {value.strip()}."
    if kind == "array" and isinstance(value, str):
        return f"Write it as a list: {key} = {json.dumps([value], ensure_ascii=False)}."
    if kind == "array" and node.get("examples"):
        return f"Write it as a list, e.g. {key} = {json.dumps(node['examples'][0], ensure_ascii=False)}."
    if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return f"Write it in quotes: {key} = \"{value}\"."
    if kind == "string" and isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return f"Write one name without brackets: {key} = {json.dumps(value[0], ensure_ascii=False)}."
    if isinstance(value, str) and "\x00" in value:
        return f"Write the table's file name without it, e.g. {key} = \"{printable(value.replace(chr(0), ''))}\"."
    if path and path[-1] == "sha256":
        return ("It is the table's checksum, written by TextLab when it saves a study; write sha256 = \"\" "
                "(or leave it out) to skip the check.")
    if path and path[-1] == "seed":
        return "Any whole number in that range will do; the same seed gives the same results."
    return f"See {FORMAT_DOC} for what each setting may hold."


# --------------------------------------------------------------------------- the JSON Schema


@cache
def _json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    return schema.model_json_schema(by_alias=True)


def _node(root: dict[str, Any], loc: tuple) -> dict[str, Any]:
    """The part of a JSON Schema that describes the value at ``loc`` ({} when unknown)."""
    definitions = root.get("$defs", {})

    def plain(node: dict[str, Any]) -> dict[str, Any]:
        for _ in range(10):
            if "$ref" in node:
                node = {**definitions.get(node["$ref"].rsplit("/", 1)[-1], {}),
                        **{k: v for k, v in node.items() if k != "$ref"}}
            elif "anyOf" in node:
                choices = [choice for choice in node["anyOf"] if choice.get("type") != "null"]
                if len(choices) != 1:
                    return node
                node = {**choices[0], **{k: v for k, v in node.items() if k != "anyOf"}}
            else:
                return node
        return node

    node = plain(root)
    for part in loc:
        if isinstance(part, int):
            node = node.get("items", {})
        elif part in node.get("properties", {}):
            node = node["properties"][part]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return {}
        node = plain(node)
    return node


def study_json_schema() -> dict[str, Any]:
    """The JSON Schema of a study file, as published in ``docs/study-schema.json``.

    Adds what a file needs beyond the pydantic models: ``[data] source`` is required, and the
    names of the representations and classifiers (from their registries) are listed."""
    from guiapp.core.models.conventional import CLASSIFIERS

    schema = StudySchema.model_json_schema(by_alias=True)
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    definitions = schema["$defs"]
    schema["required"] = ["data"]
    definitions["DataSchema"]["required"] = ["source", "mapping"]
    definitions["MappingSchema"]["required"] = ["text_columns"]
    model = definitions["ModelSchema"]["properties"]
    model["representation"]["enum"] = list(REPRESENTATION_LABELS)
    model["classifier"]["enum"] = [*CLASSIFIERS, "fine_tune", *FEW_SHOT_CLASSIFIER_LABELS,
                                        *CODEBOOK_LLM_CLASSIFIER_LABELS]
    return schema


def study_json_schema_text() -> str:
    """``docs/study-schema.json`` as it should be (``python -m guiapp.core.study.schema > …``)."""
    return json.dumps(study_json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover - regenerates docs/study-schema.json
    print(study_json_schema_text(), end="")
