"""Plain-data classes whose fields are those of a section of the study file's schema.

Each setting of a study is declared once, in ``schema.py``: its name, kind, limits and default. The
classes the rest of TextLab passes around (``ExperimentSpec`` and its parts ``DataSpec``,
``ColumnMapping``, ``CategoryFixes``, ``EvaluationSpec``, ``ClusterSpec``, ``ModelSpec``) take their
fields from it::

    class EvaluationSpec(SchemaSection, schema=EvaluationSchema, where=("evaluation",)):
        '''How models are tuned and tested.'''

makes ``EvaluationSpec`` a dataclass with the schema's fields, in the schema's order (positional
arguments follow it) and with the schema's defaults. Like any dataclass, making or changing one
checks nothing; :meth:`~SchemaSection.check` and :meth:`~SchemaSection.from_dict` hold it against the
schema and say in plain words what does not fit. Where a field is itself a section of the schema
(``[data.mapping]``), a keyword names the class used in its place (``mapping=ColumnMapping``).
"""

from __future__ import annotations

import copy
import dataclasses
import typing
from typing import Any, ClassVar

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from guiapp.core.study.schema import check_against_schema

__all__ = ["SchemaSection"]


class SchemaSection:
    """Base of the plain-data sections of a study; see the module docstring."""

    schema: ClassVar[type[BaseModel]]  # the section of the study file's schema
    where: ClassVar[tuple[str | int, ...]] = ()  # its place in a study file, named in messages
    sections: ClassVar[dict[str, type[SchemaSection]]] = {}  # field → the class of its own section

    def __init_subclass__(
        cls,
        *,
        schema: type[BaseModel],
        where: tuple[str | int, ...] = (),
        leave_out: tuple[str, ...] = (),
        **sections: type[SchemaSection],
    ) -> None:
        super().__init_subclass__()
        declared = schema.model_fields
        unknown = [name for name in (*sections, *leave_out) if name not in declared]
        if unknown:
            raise TypeError(f"{cls.__name__}: {schema.__name__} has no field(s) {', '.join(unknown)}")
        cls.schema, cls.where, cls.sections = schema, where, sections
        annotations: dict[str, Any] = {}
        for name, info in declared.items():
            if name in leave_out:
                continue
            if name in vars(cls):
                raise TypeError(f"{cls.__name__}.{name} is declared by {schema.__name__}; do not declare it again")
            section = sections.get(name)
            annotations[name] = _in_place(info.annotation, section)
            default = _default(info, section)
            if default is not dataclasses.MISSING:
                setattr(cls, name, default)
        cls.__annotations__ = annotations
        dataclasses.dataclass(cls)

    # -- dictionaries ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The section as a study file holds it (lists and tables are copies)."""
        return {field.name: _plain(getattr(self, field.name)) for field in dataclasses.fields(self)}

    @classmethod
    def validated(cls, data: Any, where: tuple[str | int, ...] | None = None) -> Any:
        """``data`` checked against the schema (a :class:`SpecError` in plain words when it does
        not fit), as the schema's model."""
        return check_against_schema(cls.schema, data, cls.where if where is None else where)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """The section of a dictionary, checked against the schema."""
        return cls.from_validated(cls.validated(data))

    @classmethod
    def from_validated(cls, checked: BaseModel) -> Any:
        """The section of the schema's (already checked) model."""
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            value = getattr(checked, field.name)
            section = cls.sections.get(field.name)
            if section is None:
                values[field.name] = copy.deepcopy(value)
            elif isinstance(value, list):
                values[field.name] = [section.from_validated(item) for item in value]
            else:
                values[field.name] = section.from_validated(value)
        return cls(**values)

    def check(self) -> None:
        """Raise :class:`SpecError` when a value is outside the schema's limits."""
        self.validated(self.to_dict())


def _in_place(annotation: Any, section: type | None) -> Any:
    """The field's type with the section's class in place of the schema's (also in ``list[…]``)."""
    if section is None:
        return annotation
    return list[section] if typing.get_origin(annotation) is list else section


def _default(info: FieldInfo, section: type | None) -> Any:
    factory = info.default_factory
    if section is not None and isinstance(factory, type) and issubclass(factory, BaseModel):
        factory = section
    if factory is not None:
        return dataclasses.field(default_factory=factory)
    if info.default is PydanticUndefined:
        return dataclasses.MISSING
    if isinstance(info.default, list | dict | set):
        value = info.default
        return dataclasses.field(default_factory=lambda: copy.deepcopy(value))
    return info.default


def _plain(value: Any) -> Any:
    if isinstance(value, SchemaSection):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
