"""How responsive the window stays while a study runs (Run step), against an idle baseline.

The real engine runs the example study (4,449 bill titles, 20 topics) in the same Worker the Run
step uses — SVM · Basic BOW and SVM · Word vectors with the paper's grids, 5 folds — while a
QTimer on the GUI thread fires every 10 ms; late ticks are stalls a user would feel.
Target while any job runs: p99 < 50 ms (a stall a user would not feel).

    python benchmarks/bench_run_stall.py [--jobs 2] [--models bow-svm,word_vectors-svm] [--cancel-after S]

``--models transformer-fine_tune --cancel-after 60`` measures a minute of fine-tuning the bundled
MiniLM (the run is then cancelled, which is measured too).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import percentile
from bench_gui_stall import probe, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--models", default="bow-svm,word_vectors-svm")
    parser.add_argument("--cancel-after", type=float, help="cancel the study after this many seconds")
    args = parser.parse_args()

    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.locations import example_path
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec
    from guiapp.ui.app import create_application
    from guiapp.workers import Worker

    app = create_application()
    models = [ModelSpec(*pair.split("-")) for pair in args.models.split(",")]
    spec = ExperimentSpec(
        data=DataSpec(str(example_path()), "Bills", mapping=ColumnMapping(text_columns=["Title"], category_column="Topic")),
        models=models,
    )
    baseline, seconds = probe(app, None, quiet_seconds=2.0)
    report("idle (baseline)", baseline, seconds)
    holder: dict = {}

    def start(done) -> None:
        worker = Worker(run_experiment, spec, n_jobs=args.jobs, name="bench study")
        worker.signals.finished.connect(lambda result: holder.update(result=result))
        worker.signals.failed.connect(lambda error: holder.update(error=error))
        worker.signals.done.connect(done)
        worker.signals.cancelled.connect(lambda: holder.update(cancelled=True))
        holder["worker"] = worker
        worker.start()
        if args.cancel_after:
            from PySide6.QtCore import QTimer

            QTimer.singleShot(int(args.cancel_after * 1000), worker.cancel)

    stalls, seconds = probe(app, start)
    if "error" in holder:
        raise SystemExit(f"the study failed: {holder['error']}")
    report("while the study runs", stalls, seconds)
    p99 = percentile(stalls, 99)
    print(f"Study: p99 stall {p99:.1f} ms (target < 50), max {max(stalls or [0]):.1f} ms -> {'PASS' if p99 < 50 else 'FAIL'}")
    print(f"Ratio p99 running / idle: {p99 / max(percentile(baseline, 99), 0.1):.1f}x")
    if holder.get("cancelled"):
        print(f"  (cancelled after {args.cancel_after:g} s, as asked)")
        return
    for model in holder["result"].models:
        print(f"  {model.name}: macro-F1 {model.test.macro_f1:.3f}, {model.seconds['total']:.1f} s")


if __name__ == "__main__":
    main()
