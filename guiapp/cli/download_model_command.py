"""``textlab download-model NAME``: download a Hugging Face model onto this computer, with the
researcher's consent given by running the command, so that ``textlab run``, ``predict`` and
``explain`` find it without going online (they never download by themselves).

For the language model of a codebook model (an instruction-tuned causal language model such as
``Qwen/Qwen2.5-0.5B-Instruct``) the download is checked to be a model that writes text; any other
Transformer or sentence model is downloaded as the Models step downloads it. A model already on this
computer is not downloaded again. Exit status: 0 on this computer, 2 could not download (the message
says why), 130 interrupted (nothing half-written is kept).
"""

from __future__ import annotations

import argparse

from guiapp.cli.console import ProgressPrinter, safe, stopped


def add_download_model_command(commands) -> None:
    download = commands.add_parser(
        "download-model", help="download a Hugging Face model (e.g. a codebook model's language model) once, "
                               "so that runs use it without going online")
    download.add_argument("name", help="the model's Hugging Face name, e.g. Qwen/Qwen2.5-0.5B-Instruct")
    download.add_argument("--language-model", action="store_true",
                          help="check that it is a language model that writes text (for a language model with "
                               "your codebook)")


def download_model_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.errors import UserError
    from guiapp.core.events import Cancelled
    from guiapp.core.models.transformers.sources.resolve import download_model, is_local_path, needs_download

    name = str(args.name).strip()
    if is_local_path(name):
        raise UserError(f"“{name}” is a folder on this computer, so there is nothing to download.",
                        "Name the folder itself as the model in the study file.")
    already = not needs_download(name)
    try:
        folder = download_model(name, progress)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped; nothing was downloaded.", 130)
    if args.language_model:
        from guiapp.core.models.llm.causal_model import is_causal_model_folder

        if not is_causal_model_folder(folder):
            raise UserError(f"{name} is on this computer now, but it is not a language model that writes text, so "
                            "it cannot code with your codebook.",
                            "Choose an instruction-tuned language model, e.g. Qwen/Qwen2.5-0.5B-Instruct.")
    progress.clear()
    print(safe(f"{name} {'was already' if already else 'is now'} on this computer ({folder})."))
    return 0
