"""``textlab self-test``: the bundled files load, a tiny study runs, and a broken file is named."""

from __future__ import annotations

import json

import pytest

from guiapp.cli.entry import main
from guiapp.core import self_test


def test_quick_mode_passes_and_prints_a_line_per_check(capsys) -> None:
    assert main(["self-test", "--quick"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("✓ bundled Transformer (all-MiniLM-L6-v2)") and " s" in out[0]
    assert any(line.startswith("✓ word vectors") for line in out)
    assert any(line.startswith("✓ example study data reads (4,449 coded texts") for line in out)
    assert out[-1].startswith("All 5 checks passed")


def test_a_broken_asset_gives_exit_1_and_is_named(monkeypatch, capsys) -> None:
    def broken():
        raise FileNotFoundError("glove_6B_50d_emb.npy is missing")

    monkeypatch.setattr(self_test, "check_word_vectors", broken)
    assert main(["self-test", "--quick"]) == 1
    out = capsys.readouterr().out
    assert "✗ word vectors (GloVe 6B, 50 dimensions) load: glove_6B_50d_emb.npy is missing" in out
    assert "✓ example study data reads" in out  # the other checks still ran
    assert out.strip().splitlines()[-1] == "1 of 5 checks failed: word vectors (GloVe 6B, 50 dimensions) load."


def test_json_report(monkeypatch, capsys) -> None:
    monkeypatch.setattr(self_test, "check_transformer", lambda: (_ for _ in ()).throw(ImportError("no torch")))
    assert main(["self-test", "--quick", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["quick"] is True and len(report["checks"]) == 5
    assert report["checks"][0]["reason"].startswith("a package is missing")
    assert "failed" in report["verdict"]


@pytest.mark.slow
def test_full_mode_runs_a_tiny_study(capsys) -> None:
    assert main(["self-test"]) == 0
    out = capsys.readouterr().out
    assert "✓ every library TextLab loads on demand imports" in out
    assert "✓ tiny study: every family a study can tick (200 texts, 6 models, test macro-F1: Naive Bayes" in out
    for family in ("XGBoost · Basic BOW", "SVM · Word vectors", "Sentence embeddings", "Zero-shot · similarity",
                   "SetFit"):
        assert family in out
    assert "✓ tiny study: fine-tuning all-MiniLM-L6-v2 (2 steps) (2 steps on" in out
    assert "✓ language model with your codebook: libraries and prompt (the libraries load" in out
    assert out.strip().splitlines()[-1].startswith("All 9 checks passed")
