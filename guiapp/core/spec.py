"""``ExperimentSpec``: everything needed to run a study, as plain data with a JSON/TOML round trip.

The GUI only ever builds a spec; the command line runs the same spec. This version holds the
data part (source file, sheet, its SHA-256 and the column mapping); model settings join it as
the engine grows. Unknown keys are refused with a clear message, so a typo in a hand-written
spec does not go unnoticed.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from guiapp.core.atomic import write_text_atomic
from guiapp.core.errors import UserError
from guiapp.core.mapping import ColumnMapping

SCHEMA_VERSION = 1


class SpecError(UserError):
    """A spec file that cannot be read or does not make sense."""


@dataclass
class DataSpec:
    """Where the coded texts come from and which columns play which role."""

    source: str = ""  # path of the table; relative paths are relative to the spec file
    sheet: str | None = None
    sha256: str = ""  # of the source file when the spec was made ("" = not checked)
    mapping: ColumnMapping = field(default_factory=ColumnMapping)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sheet": self.sheet,
            "sha256": self.sha256,
            "mapping": self.mapping.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DataSpec":
        _refuse_unknown(data, {"source", "sheet", "sha256", "mapping"}, "[data]")
        mapping = data.get("mapping", {})
        if not isinstance(mapping, dict):
            raise SpecError("The [data.mapping] part of the spec is not a table of settings.")
        _refuse_unknown(mapping, set(ColumnMapping().to_dict()), "[data.mapping]")
        return cls(
            source=str(data.get("source", "")),
            sheet=data.get("sheet"),
            sha256=str(data.get("sha256", "")),
            mapping=ColumnMapping.from_dict(mapping),
        )


@dataclass
class ExperimentSpec:
    """A whole study. Serialises to JSON and TOML and back without loss."""

    data: DataSpec = field(default_factory=DataSpec)
    name: str = ""
    seed: int = 20210401
    schema_version: int = SCHEMA_VERSION

    # -- dictionaries ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "seed": self.seed,
            "data": self.data.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ExperimentSpec":
        if not isinstance(data, dict):
            raise SpecError("A spec must be a table of settings.")
        _refuse_unknown(data, {"schema_version", "name", "seed", "data"}, "the spec")
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
        return cls(
            data=DataSpec.from_dict(data.get("data", {})),
            name=str(data.get("name", "")),
            seed=seed,
            schema_version=version,
        )

    # -- text formats ------------------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "ExperimentSpec":
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
    def from_toml(cls, text: str) -> "ExperimentSpec":
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
    def load(cls, path: str | Path) -> "ExperimentSpec":
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
        source = Path(self.data.source).expanduser()
        if not source.is_absolute() and spec_file is not None:
            source = Path(spec_file).resolve().parent / source
        return source


def _refuse_unknown(data: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise SpecError(
            f"Unknown setting(s) in {where}: {', '.join(unknown)}.",
            f"Allowed here: {', '.join(sorted(known))}. Check the spelling.",
        )


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_none(item) for item in value]
    return value
