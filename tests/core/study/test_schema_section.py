"""The study's plain-data classes take every setting (name, order, default) from the declared schema."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from pydantic_core import PydanticUndefined

from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.schema import EvaluationSchema, SpecError
from guiapp.core.study.schema_section import SchemaSection
from guiapp.core.study.sections import ClusterSpec, EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec

SECTIONS = [ExperimentSpec, DataSpec, ColumnMapping, CategoryFixes, EvaluationSpec, ClusterSpec, ModelSpec]


@pytest.mark.parametrize("section", SECTIONS, ids=lambda section: section.__name__)
def test_fields_and_defaults_are_the_schemas(section) -> None:
    declared = {name: info for name, info in section.schema.model_fields.items() if info.alias != "$schema"}
    fields = dataclasses.fields(section)
    assert [field.name for field in fields] == list(declared)
    made = section()
    for field in fields:
        info = declared[field.name]
        default = info.default_factory() if info.default is PydanticUndefined else info.default
        value = getattr(made, field.name)
        if isinstance(value, SchemaSection):  # a section of its own, whose defaults are checked by itself
            assert type(value).schema is type(default) and value == type(value)(), field.name
        else:
            assert value == default and type(value) is type(default), field.name


def test_nested_sections_are_the_plain_classes() -> None:
    spec = ExperimentSpec.from_dict({
        "data": {"source": "a.csv", "mapping": {"text_columns": ["text"]}, "category_fixes": {"trim_spaces": True}},
        "models": [{"classifier": "naive_bayes"}],
        "cluster": {"workers": 3},
    })
    assert isinstance(spec.data, DataSpec) and isinstance(spec.data.mapping, ColumnMapping)
    assert spec.data.category_fixes == CategoryFixes(trim_spaces=True)
    assert spec.models == [ModelSpec("bow", "naive_bayes")] and spec.cluster == ClusterSpec(workers=3)
    assert isinstance(ExperimentSpec().evaluation, EvaluationSpec) and ExperimentSpec().models == []


def test_positional_arguments_follow_the_schemas_order() -> None:
    model = ModelSpec("word_vectors", "xgboost", {"dimensions": 100}, {"max_depth": [3]}, "Mine")
    assert (model.representation, model.classifier, model.name) == ("word_vectors", "xgboost", "Mine")
    data = DataSpec("a.xlsx", "Sheet1", "", ColumnMapping(["text"], "label"))
    assert (data.sheet, data.mapping.category_column) == ("Sheet1", "label")
    assert ExperimentSpec(data).data is data


def test_making_and_changing_a_section_checks_nothing_until_asked() -> None:
    evaluation = EvaluationSpec(folds=40)
    evaluation.oversampling = "smote"
    with pytest.raises(SpecError, match="The study file has 2 problems"):
        evaluation.check()


def test_to_dict_gives_copies_and_equal_sections_compare_equal() -> None:
    cluster = ClusterSpec(system="slurm", setup=["module load cuda"])
    written = cluster.to_dict()
    written["setup"].append("more")
    assert cluster.setup == ["module load cuda"]
    twin = copy.deepcopy(cluster)
    assert twin == cluster and twin.setup is not cluster.setup
    assert dataclasses.replace(cluster, workers=5) != cluster


def test_a_section_cannot_declare_a_schema_field_again_or_name_an_unknown_one() -> None:
    with pytest.raises(TypeError, match="folds is declared by EvaluationSchema"):
        class Again(SchemaSection, schema=EvaluationSchema):
            folds = 3

    with pytest.raises(TypeError, match="has no field"):
        class Unknown(SchemaSection, schema=EvaluationSchema, mapping=ColumnMapping):
            pass
