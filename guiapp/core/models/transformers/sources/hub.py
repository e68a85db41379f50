"""Hugging Face hub models: found in a cache on this computer, or downloaded once with consent.

Order: TextLab's own hub cache (``<cache root>/hub``), then the user's usual Hugging Face cache
(read only), each with ``local_files_only=True``. Only if the model is in neither and downloads
are allowed (``allow_download=True``, or ``None`` with ``HF_HUB_OFFLINE`` unset) does TextLab ask
the hub which files the model has, refuse models that bring their own program code, and
download config, tokenizer and safetensors weights (``pytorch_model.bin`` only when there is no
safetensors file) into its own cache.

The download runs in a helper thread; the calling thread reports progress by the bytes that have
arrived in the cache folder and, when the callback raises ``Cancelled``, tells the helper thread
to stop at its next chunk (through the ``tqdm_class`` hook) and waits for it. Files still being
downloaded stay as ``*.incomplete`` in the hub cache, which is never mistaken for a finished
model and is resumed by the next download.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, EventCallback, Log, Progress, ignore_events
from guiapp.core.models.transformers.sources.folders import check_model_folder

WANTED = ("config.json", "*.json", "*.txt", "*.model", "*.safetensors")
_OFFLINE_HINT = (
    "Connect to the internet once to download it, or choose a model folder you already have, "
    "or the bundled MiniLM model."
)
_PATCH_LOCK = threading.Lock()


def is_offline_environment() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().lower() in {"1", "true", "yes", "on"}


def find_cached(repo_ids: list[str], cache_dir: Path) -> Path | None:
    """The snapshot folder of the first id already on this computer, else None.

    In TextLab's own cache a snapshot counts only once its download finished (a marker file
    written afterwards); in the user's usual Hugging Face cache, filled by other programs, a
    snapshot counts if it holds config.json (:func:`check_model_folder` checks the rest).
    """
    from huggingface_hub import constants

    for repo_id in repo_ids:
        for cache, needs_marker in ((cache_dir, True), (Path(constants.HF_HUB_CACHE), False)):
            storage = _storage(cache, repo_id)
            try:
                commit = (storage / "refs" / "main").read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                continue
            snapshot = storage / "snapshots" / commit
            if needs_marker and not (storage / _done_marker(commit)).is_file():
                continue
            if commit and (snapshot / "config.json").is_file():
                return snapshot
    return None


def _storage(cache: Path, repo_id: str) -> Path:
    return cache / ("models--" + repo_id.replace("/", "--"))


def _done_marker(commit: str) -> str:
    return f"textlab-complete-{commit}"


def resolve_hub_model(
    source: str,
    repo_id: str,
    on_event: EventCallback = ignore_events,
    *,
    cache_dir: Path,
    allow_download: bool | None = None,
    endpoint: str | None = None,
) -> Path:
    """A checked local folder for hub model ``repo_id`` (``source`` is what the user chose)."""
    candidates = list(dict.fromkeys([repo_id, source]))
    cached = find_cached(candidates, cache_dir)
    if cached is not None:
        return check_model_folder(cached, on_event)
    if allow_download is False or (allow_download is None and is_offline_environment()):
        raise _offline(source, None)
    files, total = _plan(source, repo_id, endpoint)
    folder = _download(source, repo_id, files, total, on_event, cache_dir, endpoint)
    return check_model_folder(folder, on_event)


def _offline(source: str, error: BaseException | None) -> UserError:
    return UserError(
        f"TextLab could not download {source}: this computer is offline "
        "(or the Hugging Face hub cannot be reached).",
        _OFFLINE_HINT,
        details="" if error is None else f"{type(error).__name__}: {error}",
    )


@contextlib.contextmanager
def _online() -> Iterator[None]:
    """Let huggingface_hub make requests for a download the user asked for.

    huggingface_hub reads HF_HUB_OFFLINE once, at import; the app sets it so nothing goes out by
    accident. An explicit download lifts it for this call only.
    """
    from huggingface_hub import constants

    with _PATCH_LOCK:
        before = constants.HF_HUB_OFFLINE
        constants.HF_HUB_OFFLINE = False
    try:
        yield
    finally:
        with _PATCH_LOCK:
            constants.HF_HUB_OFFLINE = before


def _plan(source: str, repo_id: str, endpoint: str | None) -> tuple[list[str], int]:
    """Ask the hub which files to fetch (and their total size); refuse custom-code models."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    try:
        with _online():
            info = HfApi(endpoint=endpoint).model_info(repo_id, files_metadata=True, timeout=20)
    except GatedRepoError as error:
        raise UserError(f"The model {source} is only available after you accept its terms on Hugging Face.",
                        "Choose another model, or download it yourself after logging in and choose "
                        "its folder.", details=str(error)) from error
    except RepositoryNotFoundError as error:
        raise UserError(f"There is no model called “{source}” on Hugging Face.",
                        "Check the spelling (for example “FacebookAI/roberta-base”), or choose a "
                        "model folder.", details=str(error)) from error
    except Exception as error:  # connection, DNS, proxy and server errors
        raise _offline(source, error) from error
    siblings = {s.rfilename: (s.size or 0) for s in info.siblings or []}
    config: dict[str, Any] = getattr(info, "config", None) or {}
    code = [name for name in siblings if name.endswith(".py")]
    if config.get("auto_map") or code:
        raise UserError(
            f"The model {source} needs its own program code to run.",
            "TextLab does not run code that comes with a model, for your computer's safety. "
            "Choose a model of a standard type such as BERT, RoBERTa, MPNet or XLM-RoBERTa.",
            details=", ".join(code) or "config.json has auto_map",
        )
    top = [name for name in siblings if "/" not in name]
    files = [name for name in top if any(fnmatch.fnmatch(name, pattern) for pattern in WANTED)]
    if not any(name.endswith(".safetensors") for name in files):
        files += [name for name in top if fnmatch.fnmatch(name, "pytorch_model*.bin")
                  or name == "pytorch_model.bin.index.json"]
    if "config.json" not in files:
        raise UserError(f"The Hugging Face repository {source} is not a Transformers model (no config.json).",
                        "Choose another model.")
    return sorted(set(files)), sum(siblings[name] for name in set(files))


def _download(
    source: str, repo_id: str, files: list[str], total: int,
    on_event: EventCallback, cache_dir: Path, endpoint: str | None,
) -> Path:
    from huggingface_hub import snapshot_download

    stop = threading.Event()
    outcome: dict[str, Any] = {}
    storage = _storage(cache_dir, repo_id)
    baseline = _folder_bytes(storage)

    def work() -> None:
        try:
            with _online():
                outcome["folder"] = snapshot_download(
                    repo_id, cache_dir=cache_dir, allow_patterns=files, endpoint=endpoint,
                    tqdm_class=_stop_hook(stop),
                )
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread
            outcome["error"] = error

    message = f"Downloading {source} ({total / 1e6:,.0f} MB, first use only)"
    on_event(Progress(0.0, message, 0, total))
    thread = threading.Thread(target=work, name=f"TextLab download {repo_id}")
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.25)
            done = min(max(_folder_bytes(storage) - baseline, 0), total)
            on_event(Progress(done / total if total else None, message, done, total))
    except BaseException:
        stop.set()  # the helper thread stops at its next chunk
        raise
    finally:
        thread.join()
    error = outcome.get("error")
    if isinstance(error, Cancelled):
        raise error
    if isinstance(error, OSError) and error.errno in {errno.ENOSPC, errno.EACCES, errno.EROFS, errno.EPERM}:
        raise UserError(f"TextLab could not save {source} in “{cache_dir}”.",
                        "Free some disk space, or set TEXTLAB_CACHE_DIR to a folder you may write to.",
                        details=str(error)) from error
    if error is not None:
        raise _offline(source, error) from error
    on_event(Progress(1.0, message, total, total))
    folder = Path(outcome["folder"])
    (storage / _done_marker(folder.name)).write_text(",".join(files), encoding="utf-8")
    on_event(Log(f"Downloaded {source} ({total / 1e6:,.0f} MB) into {storage} (once; later runs reuse it)."))
    return folder


def _stop_hook(stop: threading.Event) -> type:
    """A silent tqdm class whose every update raises ``Cancelled`` once ``stop`` is set."""
    from huggingface_hub.utils import tqdm as hf_tqdm

    class StopHook(hf_tqdm):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> bool | None:
            if stop.is_set():
                raise Cancelled()
            return super().update(n)

    return StopHook


def _folder_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, names in os.walk(folder / "blobs"):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(root, name)).st_size
    return total
