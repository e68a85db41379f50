"""``ExperimentSpec``: everything needed to run a study, as plain data with a JSON/TOML round trip.

The GUI only ever builds a spec; the command line runs the same spec. A spec holds the data
part (source file, sheet, its SHA-256, the column mapping and an optional separate test file),
the evaluation protocol and the list of models to compare (``spec_sections.py``). Unknown keys
are refused with a clear message, so a typo in a hand-written spec does not go unnoticed.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from guiapp.core.atomic import write_text_atomic
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import (
    EvaluationSpec,
    ModelSpec,
    SpecError,
    refuse_unknown,
)

SCHEMA_VERSION = 1
_DATA_KEYS = {"source", "sheet", "sha256", "mapping", "test_source", "test_sheet"}


@dataclass
class DataSpec:
    """Where the coded texts come from and which columns play which role."""

    source: str = ""  # path of the table; relative paths are relative to the spec file
    sheet: str | None = None
    sha256: str = ""  # of the source file when the spec was made ("" = not checked)
    mapping: ColumnMapping = field(default_factory=ColumnMapping)
    test_source: str = ""  # optional separate table of test texts with the same columns
    test_sheet: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sheet": self.sheet,
            "sha256": self.sha256,
            "test_source": self.test_source,
            "test_sheet": self.test_sheet,
            "mapping": self.mapping.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DataSpec:
        if not isinstance(data, dict):
            raise SpecError("The [data] part of the spec is not a table of settings.")
        refuse_unknown(data, _DATA_KEYS, "[data]")
        mapping = data.get("mapping", {})
        if not isinstance(mapping, dict):
            raise SpecError("The [data.mapping] part of the spec is not a table of settings.")
        refuse_unknown(mapping, set(ColumnMapping().to_dict()), "[data.mapping]")
        spec = cls(
            source=str(data.get("source", "")),
            sheet=data.get("sheet"),
            sha256=str(data.get("sha256", "")),
            mapping=ColumnMapping.from_dict(mapping),
            test_source=str(data.get("test_source", "") or ""),
            test_sheet=data.get("test_sheet"),
        )
        if spec.test_source and spec.mapping.split_column:
            raise SpecError(
                "The spec names both a test file and a split column.",
                "Use one of them to say which texts are for testing: remove test_source or split_column.",
            )
        return spec


@dataclass
class ExperimentSpec:
    """A whole study. Serialises to JSON and TOML and back without loss."""

    data: DataSpec = field(default_factory=DataSpec)
    name: str = ""
    seed: int = 20210401
    evaluation: EvaluationSpec = field(default_factory=EvaluationSpec)
    models: list[ModelSpec] = field(default_factory=list)
    schema_version: int = SCHEMA_VERSION

    # -- dictionaries ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "seed": self.seed,
            "data": self.data.to_dict(),
            "evaluation": self.evaluation.to_dict(),
            "models": [model.to_dict() for model in self.models],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentSpec:
        if not isinstance(data, dict):
            raise SpecError("A spec must be a table of settings.")
        refuse_unknown(data, {"schema_version", "name", "seed", "data", "evaluation", "models"}, "the spec")
        version = int(data.get("schema_version", SCHEMA_VERSION))
        if version > SCHEMA_VERSION:
            raise SpecError(
                f"This spec was written by a newer TextLab (format {version}).",
                "Update TextLab to open it.",
            )
        try:
            seed = int(data.get("seed", 20210401))
        except (TypeError, ValueError):
            raise SpecError(f"The seed must be a whole number, not {data.get('seed')!r}.") from None
        models = data.get("models", [])
        if not isinstance(models, list):
            raise SpecError("'models' must be a list of model tables ([[models]] in TOML).")
        return cls(
            data=DataSpec.from_dict(data.get("data", {})),
            name=str(data.get("name", "")),
            seed=seed,
            evaluation=EvaluationSpec.from_dict(data.get("evaluation", {})),
            models=[ModelSpec.from_dict(model, position) for position, model in enumerate(models, 1)],
            schema_version=version,
        )

    # -- text formats ------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> ExperimentSpec:
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as error:
            raise SpecError(
                f"The spec is not valid JSON (line {error.lineno}, column {error.colno}).",
                "Check that line for a missing comma or quote.",
                str(error),
            ) from None

    def to_toml(self) -> str:
        return tomli_w.dumps(_without_none(self.to_dict()))

    @classmethod
    def from_toml(cls, text: str) -> ExperimentSpec:
        try:
            return cls.from_dict(tomllib.loads(text))
        except tomllib.TOMLDecodeError as error:
            raise SpecError("The spec is not valid TOML.", "Check the line named below.", str(error)) from None

    # -- files -------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the spec atomically; ``.toml`` gives TOML, anything else JSON."""
        path = Path(path)
        write_text_atomic(path, self.to_toml() if path.suffix.lower() == ".toml" else self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> ExperimentSpec:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise SpecError(f"The spec file {path} does not exist.", "Check the path.") from None
        except (OSError, UnicodeDecodeError) as error:
            raise SpecError(f"The spec file {path} cannot be read.", "Save it as UTF-8 text.", str(error)) from None
        spec = cls.from_toml(text) if path.suffix.lower() == ".toml" else cls.from_json(text)
        return spec

    def source_path(self, spec_file: str | Path | None = None) -> Path:
        """The data file, with a relative ``source`` resolved against the spec file's folder."""
        return _resolve(self.data.source, spec_file)

    def test_source_path(self, spec_file: str | Path | None = None) -> Path | None:
        """The separate test file, if any, resolved like :meth:`source_path`."""
        return _resolve(self.data.test_source, spec_file) if self.data.test_source else None


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
