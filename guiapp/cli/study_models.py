"""The study's result and chosen trained models, from a results folder or a ``.textlab`` project
(shared by ``textlab predict`` and ``textlab explain``)."""

from __future__ import annotations

from pathlib import Path


def open_study_models(results: str, names: list[str] | None, doing: str):
    """(ExperimentResult, opened models); ``doing`` completes "…, so there is nothing to …"."""
    from guiapp.core.errors import UserError
    from guiapp.core.predict.saved_results import choose_models, open_models, read_results

    if Path(results).suffix.lower() == ".textlab":
        from guiapp.core import locations
        from guiapp.core.project.opening import open_project

        project = open_project(results, extract_models_to=locations.cache_dir() / "projects")
        if project.result is None:
            raise UserError(f"This project has no results yet, so there is nothing to {doing}.",
                            "Open it in TextLab, run the study, save the project, and try again.")
        return project.result, open_models(lambda model: project.model_folder(model.name),
                                           choose_models(project.result, names))
    result = read_results(results)
    return result, open_models(results, choose_models(result, names))


def language_model_lines(models, doing: str) -> list[str]:
    """One line for each language model with your codebook among ``models``: what it is, and that
    ``doing`` (e.g. "predicting", "explaining") reads its whole prompt for every text."""
    lines = []
    for model in models:
        if getattr(model, "family", "") != "codebook_llm":
            continue
        where = "asks its language-model server" if model.runs_on_server else "runs its language model inside TextLab"
        lines.append(f"{model.name} is a {model.title[0].lower()}{model.title[1:]}: {doing} {where} and reads the "
                     "whole prompt (your codebook, its examples and the text) for every text, so it takes a while.")
    return lines
