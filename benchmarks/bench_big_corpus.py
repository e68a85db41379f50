"""A big corpus through TextLab: opening it, Predict and Findings per year — time, peak memory, estimates.

    python benchmarks/bench_big_corpus.py [--texts 1000000] [--work DIR] [--jobs open,predict,findings]

Builds a synthetic corpus of N texts (default 1,000,000) from the US Congress bill titles in
``../shared/data/cap_uscongress_bills`` by sampling with variation (two words swapped, a word left out,
a few words of another title added), with a ``year`` (1990–2024) and a ``party`` column, and a
``topic`` coded for 1 % of the texts (the rest empty, as in a corpus of which a sample was coded). It
is written once as Parquet and as CSV into ``--work`` (default ``benchmarks/out/big_corpus``) and reused.
Then each job runs in a fresh child process, and its wall time and peak memory (the child's largest
resident set size, sampled with psutil every 20 ms, imports included) are measured:

- **open**: TextLab's reader (``read_table``) followed by the Data step's health report
  (``compute_health``), for the Parquet and the CSV file; baseline: pandas reading the same file
  (``read_parquet`` with pyarrow, ``read_csv(engine="pyarrow")``).
- **predict**: the example study's bag-of-words model (an SVM on the basic bag of words, trained on the
  bundled example's bill titles, saved and opened as ``textlab predict`` does) applied to every text by
  the streamed predict engine (``predict_new_texts``) and written as Parquet; baseline: a competent
  pandas + scikit-learn loop over Parquet batches of 50,000 rows (the same fitted representation and
  classifier, ``transform`` then ``predict_proba``, written with a ``ParquetWriter``).
- **findings**: the categories' shares per year on the predicted corpus (``estimate_findings``), with
  the example's held-out titles as the coded texts of the same kind (given years at random).

Both are measured over the phase whose progress bar TextLab shows (reading the file; predicting).
Where TextLab shows a time estimate ("about … left"), estimate ÷ actual is the first estimate's total
(elapsed when shown + what it said was left) over the phase's actual time; "progress at half time" is
how far the bar was when half that time had passed (an honest bar: about 50 %). A job that fails
(out of memory, an error) is reported with the number of texts where it broke. Without
``../shared/data`` the benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import re
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
CAP = DATA / "cap_uscongress_bills" / "USCongress.csv.gz"
PARTIES = ("Democrat", "Republican", "Independent")
BATCH = 50_000
_LEFT = re.compile(r"about ([\d.]+) (s|min|h) left")
_UNIT = {"s": 1.0, "min": 60.0, "h": 3600.0}


# ---------------------------------------------------------------- the corpus

def build_corpus(n: int, work: Path, seed: int = 7) -> tuple[Path, Path]:
    """The Parquet and CSV files of an N-text corpus in ``work`` (made once, then reused)."""
    import pandas as pd

    parquet, csv = work / f"corpus_{n}.parquet", work / f"corpus_{n}.csv"
    if parquet.exists() and csv.exists():
        return parquet, csv
    work.mkdir(parents=True, exist_ok=True)
    source = pd.read_csv(CAP, sep=";")
    titles = [str(t).split() for t in source["text"]]
    majors = source["major"].astype(str).to_numpy()
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(titles), size=n)
    others = rng.integers(0, len(titles), size=n)
    extra = rng.integers(0, 4, size=n)
    texts = []
    for i in range(n):
        words = list(titles[picks[i]])
        if len(words) > 3:
            a, b = rng.integers(0, len(words), size=2)
            words[a], words[b] = words[b], words[a]
            del words[int(rng.integers(0, len(words)))]
        if extra[i]:
            words += titles[others[i]][: extra[i]]
        texts.append(" ".join(words))
    topic = np.where(rng.random(n) < 0.01, majors[picks], None)
    frame = pd.DataFrame({"id": np.arange(1, n + 1), "text": texts, "topic": topic,
                          "year": rng.integers(1990, 2025, size=n), "party": rng.choice(PARTIES, size=n)})
    frame.to_parquet(parquet, index=False)
    frame.to_csv(csv, index=False)
    return parquet, csv


def train_example_model(folder: Path) -> None:
    """The example study's bag-of-words SVM, trained on 70 % of the example's titles and saved as a
    study saves it; the other 30 % (with their topics) are kept beside it as the coded texts."""
    import pandas as pd

    from guiapp.core.experiment.families.conventional_files import save_conventional
    from guiapp.core.experiment.protocol.fitting import fit_classifier
    from guiapp.core.features import make_representation
    from guiapp.core.locations import example_path

    frame = pd.read_excel(example_path(), engine="calamine")
    texts, labels = frame["Title"].astype(str).to_numpy(), frame["Topic"].astype(str).to_numpy()
    held_out = np.random.default_rng(0).random(len(texts)) < 0.3
    categories = sorted(set(labels))
    y = np.array([categories.index(c) for c in labels[~held_out]])
    representation = make_representation("bow", {}).fit(list(texts[~held_out]))
    classifier = fit_classifier("svm", {"kernel": "linear", "C": 0.1}, 1, 2,
                                representation.transform(list(texts[~held_out])), y, probabilities=True)
    save_conventional(folder, representation, classifier, categories, {"name": "SVM · Basic BOW"})
    pd.DataFrame({"text": texts[held_out], "topic": labels[held_out]}).to_parquet(folder.parent / "coded.parquet")


# ---------------------------------------------------------------- the jobs (each in a child process)

class Recorder:
    """The progress events of a job with the time each came, for the estimate and the bar's honesty."""

    def __init__(self) -> None:
        self.start, self.events = time.perf_counter(), []

    def __call__(self, event: object) -> None:
        fraction = getattr(event, "fraction", None)
        if fraction is not None:
            self.events.append((time.perf_counter() - self.start, float(fraction), str(getattr(event, "message", ""))))

    def honesty(self, actual: float) -> tuple[float | None, float | None]:
        """(first estimate's total ÷ actual, progress at half the actual time)."""
        ratio = None
        for when, _fraction, message in self.events:
            found = _LEFT.search(message)
            if found:
                ratio = (when + float(found.group(1)) * _UNIT[found.group(2)]) / actual
                break
        before = [fraction for when, fraction, _ in self.events if when <= actual / 2]
        return ratio, (before[-1] if before else None)


def _open_textlab(path: str) -> dict:
    from guiapp.core.health.report import compute_health
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.tables.reader import read_table

    recorder = Recorder()  # the bar of opening the file
    loaded = read_table(path, on_event=recorder)
    read_seconds = time.perf_counter() - recorder.start
    mapping = ColumnMapping(text_columns=["text"], category_column="topic", metadata_columns=["year", "party"])
    compute_health(loaded.frame, mapping)
    return {"recorder": recorder, "bar seconds": read_seconds,
            "note": f"read {read_seconds:.1f} s, health {time.perf_counter() - recorder.start - read_seconds:.1f} s"}


def _open_pandas(path: str) -> dict:
    import pandas as pd

    frame = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path, engine="pyarrow")
    return {"note": f"{len(frame):,} rows"}


def _predict_textlab(corpus: str, model_folder: str, out: str) -> dict:
    from guiapp.core.export.prediction_files import write_predictions
    from guiapp.core.predict.new_texts import predict_new_texts, table_texts
    from guiapp.core.predict.open_model import open_trained_model
    from guiapp.core.tables.reader import read_table

    begun = time.perf_counter()
    frame = read_table(corpus).frame
    model = open_trained_model(model_folder, Path(model_folder).name)
    recorder = Recorder()  # the bar of predicting
    found = predict_new_texts([model], table_texts(frame, ["text"]), on_event=recorder)
    predicting = time.perf_counter() - recorder.start
    Path(out).unlink(missing_ok=True)
    write_predictions(out, frame, found, overwrite=True)
    return {"recorder": recorder, "bar seconds": predicting,
            "note": f"predicting {predicting:.1f} s, rest (reading, writing) {time.perf_counter() - begun - predicting:.1f} s"}


def _predict_baseline(corpus: str, model_folder: str, out: str) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from guiapp.core.predict.open_model import open_trained_model

    model = open_trained_model(model_folder, Path(model_folder).name)  # only its fitted objects are used
    representation, classifier = model.representation, model.classifier
    writer = None
    for batch in pq.ParquetFile(corpus).iter_batches(batch_size=BATCH):
        chunk = batch.to_pandas()
        X = representation.transform(chunk["text"].fillna("").astype(str).tolist())
        probabilities = classifier.predict_proba(X)
        chunk["predicted"] = np.asarray(model.categories)[probabilities.argmax(axis=1)]
        for k, name in enumerate(model.categories):
            chunk[f"p {name}"] = probabilities[:, k].astype(np.float32)
        table = pa.Table.from_pandas(chunk, preserve_index=False)
        writer = writer or pq.ParquetWriter(out, table.schema)
        writer.write_table(table)
    if writer is not None:
        writer.close()
    return {"note": f"batches of {BATCH:,}"}


def _findings(predicted: str, work: str) -> dict:
    import pandas as pd

    from guiapp.core.findings import CodedSample, SeparateSample, estimate_findings
    from guiapp.core.predict.open_model import open_trained_model

    recorder = Recorder()
    model_folder = Path(work) / "SVM · Basic BOW"
    model = open_trained_model(model_folder, model_folder.name)
    coded = pd.read_parquet(Path(work) / "coded.parquet")
    _, coded_probabilities = model.answer(coded["text"].tolist())
    table = pd.read_parquet(predicted)
    columns = _probability_columns(list(table.columns), model.categories)
    probabilities = table[columns].to_numpy(dtype=np.float64)
    years = table["year"].astype(str).to_numpy()
    coded_years = np.random.default_rng(1).choice(np.unique(years), size=len(coded))
    sample = CodedSample(coded["topic"].tolist(), coded_probabilities, groups=coded_years.tolist())
    found = estimate_findings(probabilities, model.categories, sample, SeparateSample(), groups=years.tolist(),
                              group_name="year", on_event=recorder)
    return {"recorder": recorder, "note": f"{len(np.unique(years))} years × {len(model.categories)} categories, "
                                          f"{len(coded):,} coded; {type(found).__name__}"}


def _probability_columns(columns: list[str], categories: list[str]) -> list[str]:
    """The predictions file's probability column of each category, in the categories' order."""
    chosen = []
    for category in categories:
        matches = [c for c in columns if category in c and ("probab" in c.lower() or c.startswith("p "))]
        if not matches:
            raise ValueError(f"no probability column for {category!r} among {columns}")
        chosen.append(matches[0])
    return chosen


JOBS = {"open textlab": _open_textlab, "open pandas": _open_pandas, "predict textlab": _predict_textlab,
        "predict baseline": _predict_baseline, "findings textlab": _findings}


def _child(kind: str, args: tuple, queue) -> None:
    try:
        start = time.perf_counter()
        outcome = JOBS[kind](*args)
        seconds = time.perf_counter() - start
        recorder = outcome.pop("recorder", None)
        ratio, half = recorder.honesty(outcome.pop("bar seconds", seconds)) if recorder else (None, None)
        queue.put({"seconds": seconds, "ratio": ratio, "half": half, **outcome})
    except BaseException as error:  # reported as a row of the table  # noqa: BLE001
        queue.put({"error": f"{type(error).__name__}: {error}".strip()[:160],
                   "trace": traceback.format_exc(limit=3)})


def run_job(kind: str, *args: object) -> dict:
    """Run one job in a fresh child process; its peak memory is the largest resident set size (with
    psutil, every 20 ms) of the child, imports included."""
    import psutil

    context = mp.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_child, args=(kind, args, queue))
    process.start()
    watched, peak, outcome = psutil.Process(process.pid), 0, None
    while outcome is None:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.Error:
            pass
        try:
            outcome = queue.get(timeout=0.02)
        except Exception:  # queue.Empty: still working, or died without a word
            if not process.is_alive() and queue.empty():
                outcome = {"error": f"the process ended with exit code {process.exitcode} (killed: out of memory?)"}
    process.join()
    outcome["peak"] = peak / 2**20
    return outcome


# ---------------------------------------------------------------- the table

def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {cores} cores usable, {memory:.0f} GiB memory"


def _row(n: int, job: str, case: str, outcome: dict, baseline: dict | None) -> str:
    if "error" in outcome:
        return f"| {n:,} | {job} | {case} | failed at {n:,} texts: {outcome['error']} | | | | | |"
    ratio = f"{outcome['ratio']:.2f}" if outcome.get("ratio") is not None else "no estimate"
    half = f"{outcome['half']:.0%}" if outcome.get("half") is not None else "no bar"
    versus = ""
    if baseline and "error" not in baseline:
        versus = f"{outcome['seconds'] / baseline['seconds']:.2f}× time, {outcome['peak'] / baseline['peak']:.2f}× memory"
    return (f"| {n:,} | {job} | {case} | {outcome['seconds']:.1f} | {outcome['peak']:,.0f} | {ratio} | {half} | "
            f"{versus} | {outcome.get('note', '')} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out" / "big_corpus")
    parser.add_argument("--jobs", default="open,predict,findings")
    options = parser.parse_args(argv)
    if not CAP.exists():
        print(f"The shared corpora are not here ({DATA}); nothing to measure.")
        return 0
    jobs, n, work = options.jobs.split(","), options.texts, options.work
    print(f"Machine: {machine()}; Python {platform.python_version()}")
    start = time.perf_counter()
    parquet, csv = build_corpus(n, work)
    print(f"Corpus of {n:,} texts: {parquet.stat().st_size / 1e6:,.0f} MB Parquet, {csv.stat().st_size / 1e6:,.0f} MB CSV "
          f"(made or found in {time.perf_counter() - start:.0f} s)\n")
    model_folder = work / "SVM · Basic BOW"
    if not model_folder.exists():
        train_example_model(model_folder)
    predicted = work / f"predicted_{n}.parquet"
    print("| texts | job | case | seconds | peak MB | estimate ÷ actual | progress at half time | vs baseline | note |")
    print("|---:|---|---|---:|---:|---:|---:|---|---|")
    if "open" in jobs:
        for path, name in ((parquet, "Parquet"), (csv, "CSV")):
            base = run_job("open pandas", str(path))
            print(_row(n, f"open {name}", "pandas (baseline)", base, None), flush=True)
            print(_row(n, f"open {name}", "TextLab reader + health report", run_job("open textlab", str(path)), base), flush=True)
    if "predict" in jobs:
        base = run_job("predict baseline", str(parquet), str(model_folder), str(work / f"baseline_{n}.parquet"))
        print(_row(n, "predict (bag of words)", "pandas + sklearn chunks (baseline)", base, None), flush=True)
        print(_row(n, "predict (bag of words)", "TextLab streamed engine",
                   run_job("predict textlab", str(parquet), str(model_folder), str(predicted)), base), flush=True)
    if "findings" in jobs:
        if predicted.exists():
            print(_row(n, "findings per year", "TextLab", run_job("findings textlab", str(predicted), str(work)), None),
                  flush=True)
        else:
            print(f"| {n:,} | findings per year | TextLab | not run: no predictions (run the predict job) | | | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
