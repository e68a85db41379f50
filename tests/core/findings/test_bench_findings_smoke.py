"""The per-group coverage simulation runs in its quick mode and prints its table."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_findings.py"


def test_quick_mode_runs_and_prints_the_coverage_table(capsys):
    spec = importlib.util.spec_from_file_location("bench_findings", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--quick", "--jobs", "1", "--draws", "2"]) == 0
    out = capsys.readouterr().out
    assert "| table | random | 300 |" in out and "| predicted | random | 300 |" in out
    assert "rare (< 1 %)" in out and "naive count" in out
