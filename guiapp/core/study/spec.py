"""``ExperimentSpec``: everything needed to run a study, as plain data with a JSON/TOML round trip.

The GUI only ever builds a spec; the command line runs the same spec. A spec holds the data
part (source file, sheet, its SHA-256, the column mapping and an optional separate test file),
the evaluation protocol and the list of models to compare (``sections.py``). Every spec that is
opened — a study file, a project, a results folder — passes :meth:`ExperimentSpec.from_dict`,
which checks it against the declared schema (``schema.py``): unknown keys, values of the wrong
kind and values out of range are refused with a sentence that names the key, so a typo in a
hand-written spec does not go unnoticed. :meth:`ExperimentSpec.load` adds the checks of a file:
not empty, not nested absurdly deep, valid TOML/JSON (with the line), and a ``source``.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from guiapp.core.atomic import write_text_atomic
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.schema import (
    FORMAT_DOC,
    SCHEMA_VERSION,
    DataSchema,
    StudySchema,
    nesting_error,
)
from guiapp.core.study.schema_section import SchemaSection
from guiapp.core.study.sections import (
    ClusterSpec,
    EvaluationSpec,
    ModelSpec,
    SpecError,
)

MAX_NESTING = 64  # tables and lists inside each other; a study file needs 4


class DataSpec(
    SchemaSection, schema=DataSchema, where=("data",), mapping=ColumnMapping, category_fixes=CategoryFixes,
):
    """Where the coded texts come from and which columns play which role (``[data]``): the table
    (a relative path is relative to the study file), its sheet and SHA-256 ("" = not checked), an
    optional separate table of test texts with the same columns, the table's rows and categories
    when the study was made (None = not recorded), and the category fixes the study records (never
    written into the table)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sheet": self.sheet,
            "sha256": self.sha256,
            "test_source": self.test_source,
            "test_sheet": self.test_sheet,
            "mapping": self.mapping.to_dict(),
            "rows": self.rows,
            "categories": None if self.categories is None else list(self.categories),
            # left out when there are none, so studies without fixes read as before
            **({} if self.category_fixes.is_empty() else {"category_fixes": self.category_fixes.to_dict()}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DataSpec:
        spec = super().from_dict(data)
        spec.sha256 = spec.sha256.lower()  # as sha256sum and TextLab write it
        if spec.test_source and spec.mapping.split_column:
            raise SpecError(
                "The spec names both a test file and a split column.",
                "Use one of them to say which texts are for testing: remove test_source or split_column.",
            )
        return spec


class ExperimentSpec(
    SchemaSection, schema=StudySchema, leave_out=("json_schema",),
    data=DataSpec, evaluation=EvaluationSpec, models=ModelSpec, cluster=ClusterSpec,
):
    """A whole study: its data, name, seed, evaluation protocol, models to compare and where it runs
    (``[cluster]``, written only when not this computer). Serialises to JSON and TOML and back
    without loss."""

    # -- dictionaries ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "seed": self.seed,
            "data": self.data.to_dict(),
            "evaluation": self.evaluation.to_dict(),
            "models": [model.to_dict() for model in self.models],
            **({} if self.cluster == ClusterSpec() else {"cluster": self.cluster.to_dict()}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentSpec:
        """The spec of a dictionary, checked against the declared schema (see ``schema.py``)."""
        version = data.get("schema_version") if isinstance(data, dict) else None
        if isinstance(version, int | float) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            raise SpecError(
                f"This spec was written by a newer TextLab (format {version}).",
                "Update TextLab to open it.",
            )
        checked = cls.validated(data)  # every problem of the file at once
        raw = dict(data)
        return cls(
            data=DataSpec.from_dict(raw.get("data", {})),
            name=checked.name,
            seed=checked.seed,
            evaluation=EvaluationSpec.from_dict(raw.get("evaluation", {})),
            models=[ModelSpec.from_dict(model, position) for position, model in enumerate(raw.get("models", []), 1)],
            cluster=ClusterSpec.from_dict(raw.get("cluster", {})),
            schema_version=checked.schema_version,
        )

    # -- text formats ------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> ExperimentSpec:
        return cls.from_dict(_parsed(text, toml=False))

    def to_toml(self) -> str:
        return tomli_w.dumps(_without_none(self.to_dict()))

    @classmethod
    def from_toml(cls, text: str) -> ExperimentSpec:
        return cls.from_dict(_parsed(text, toml=True))

    # -- files -------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the spec atomically; ``.toml`` gives TOML, anything else JSON."""
        path = Path(path)
        write_text_atomic(path, self.to_toml() if path.suffix.lower() == ".toml" else self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> ExperimentSpec:
        """Read a study file: checked against the schema, and it must name its table."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise SpecError(f"The study file {path} does not exist.", "Check the path.") from None
        except IsADirectoryError:
            raise SpecError(f"{path} is a folder, not a study file.", "Name the .toml or .json study file.") from None
        except (OSError, UnicodeDecodeError) as error:
            raise SpecError(f"The study file {path} cannot be read.", "Save it as UTF-8 text.", str(error)) from None
        if not text.strip():
            raise SpecError(
                f"The study file {path.name} is empty.",
                f"Write at least [data] with source and [data.mapping] (see {FORMAT_DOC}), "
                "or save a study from TextLab with File → Save study file as….",
            )
        spec = cls.from_toml(text) if path.suffix.lower() == ".toml" else cls.from_json(text)
        if not spec.data.source.strip():
            raise SpecError(
                f"The study file {path.name} does not say which table to use: [data] source is missing.",
                'Add it under [data], e.g. source = "tweets.csv" (relative to the study file\'s folder).',
            )
        return spec

    def source_path(self, spec_file: str | Path | None = None) -> Path:
        """The data file, with a relative ``source`` resolved against the spec file's folder."""
        return _resolve(self.data.source, spec_file)

    def test_source_path(self, spec_file: str | Path | None = None) -> Path | None:
        """The separate test file, if any, resolved like :meth:`source_path`."""
        return _resolve(self.data.test_source, spec_file) if self.data.test_source else None


def _parsed(text: str, *, toml: bool) -> Any:
    """The study file's text read as TOML or JSON; a :class:`SpecError` that names and shows the
    line when it is neither."""
    check_nesting(text, toml=toml)
    try:
        return tomllib.loads(text) if toml else _json_without_duplicates(text)
    except json.JSONDecodeError as error:
        raise SpecError(
            f"The study file is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})."
            + _quoted_line(text, error.lineno),
            "Check that line for a missing comma, quote or bracket.",
            str(error),
        ) from None
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"line (\d+), column (\d+)", str(error))
        line = int(where.group(1)) if where else 0
        raise SpecError(
            f"The study file is not valid TOML: {error}." + _quoted_line(text, line),
            "Check that line: text needs quotes, a list needs [ ], and each setting is written key = value.",
            str(error),
        ) from None
    except RecursionError:
        raise nesting_error() from None


def _json_without_duplicates(text: str) -> Any:
    """The JSON value of ``text``; a :class:`SpecError` naming the key and where, when one object
    gives the same key twice (JSON's parser would silently keep the last; TOML refuses it)."""
    twice: list[tuple[str, dict]] = []

    def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict:
        value: dict = {}
        for key, item in pairs:
            if key in value and not twice:
                twice.append((key, value))
            value[key] = item
        return value

    parsed = json.loads(text, object_pairs_hook=pairs_to_dict)
    if twice:
        key, holder = twice[0]
        where = _place_of(parsed, holder) or "the same part of the file"
        raise SpecError(
            f"The study file gives “{key}” twice in {where}; JSON would quietly keep only the last one.",
            f"Keep one “{key}” there and delete the other (a study file names each setting once).",
        )
    return parsed


def _place_of(value: Any, holder: dict, path: tuple[str, ...] = ()) -> str | None:
    """Where ``holder`` sits in ``value``, as a study file's sections are named ("[evaluation]",
    "entry 2 of [models]", "the top level of the file")."""
    if value is holder:
        if not path:
            return "the top level of the file"
        text, tables = "", []
        for part in path:
            if part.startswith("#"):
                text = f"entry {part[1:]} of [{'.'.join(tables)}]"
                tables = []
            else:
                tables.append(part)
        if tables:
            return f"[{'.'.join(tables)}]" + (f" in {text}" if text else "")
        return text
    items = value.items() if isinstance(value, dict) else (
        ((f"#{number}", item) for number, item in enumerate(value, 1)) if isinstance(value, list) else ())
    for key, item in items:
        found = _place_of(item, holder, (*path, str(key)))
        if found:
            return found
    return None


def check_nesting(text: str, *, toml: bool) -> None:
    """Refuse text whose tables and lists nest deeper than :data:`MAX_NESTING`, without parsing it
    (the parsers recurse, and a file nested thousands deep would crash them)."""
    strings = (r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*' if toml
               else r'"[^"\\]*(?:\\.[^"\\]*)*"')
    depth = 0
    for bracket in re.sub(r"[^\[\]{}]", "", re.sub(strings, "", text)):
        depth = depth + 1 if bracket in "[{" else max(depth - 1, 0)
        if depth > MAX_NESTING:
            raise nesting_error()


def _quoted_line(text: str, number: int) -> str:
    lines = text.splitlines()
    if not 1 <= number <= len(lines):
        return ""
    line = lines[number - 1].strip()
    return f"\nLine {number}: {line[:120]}{'…' if len(line) > 120 else ''}"


def _resolve(name: str, spec_file: str | Path | None) -> Path:
    path = Path(name).expanduser()
    if not path.is_absolute() and spec_file is not None:
        path = Path(spec_file).resolve().parent / path
    return path


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_none(item) for item in value]
    return value
