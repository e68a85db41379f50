"""The reference protocol for a base-size Transformer, end to end, on a GPU: 5-fold cross-validation
of 9 settings (learning rate 1e-5, 2e-5, 3e-5 × 2, 3, 4 epochs) on a 650-text training set, then
the chosen setting once more on all 650 texts — 46 fine-tunings with TextLab's ``fine_tune``, bf16.

A base-size BERT (12 layers, hidden 768, 110 M parameters) is built from its configuration with
random weights and the bundled model's uncased WordPiece vocabulary (the one BERT-base uses): the
machine has no internet, and the speed does not depend on the weights. The scores do, so they are
printed only to show every fold ran. Goal: under 5 minutes on one H100.

    TEXTLAB_BENCH_MODEL=… TEXTLAB_BENCH_DATA=… python benchmarks/bench_protocol_gpu.py
"""

from __future__ import annotations

import itertools
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from bench_fine_tuning import load_texts, model_path  # noqa: E402

GRID = list(itertools.product((1e-5, 2e-5, 3e-5), (2, 3, 4)))
FOLDS, N_TEXTS, SEED = 5, 650, 20210401


def base_bert(folder: Path) -> Path:
    """A BERT-base folder: random weights, the bundled model's tokenizer files."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    source = Path(model_path())
    for name in ("special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copy2(source / name, folder / name)
    torch.manual_seed(0)
    BertForSequenceClassification(BertConfig(num_labels=3)).save_pretrained(folder)
    return folder


def main() -> None:
    import numpy as np
    import torch
    from sklearn.metrics import f1_score
    from sklearn.model_selection import StratifiedKFold

    from guiapp.core.models.transformers.fine_tuning import fine_tune, predict_proba
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    texts, labels = load_texts(N_TEXTS)
    labels = np.array(labels)
    print(f"{torch.cuda.get_device_name(0)}; {N_TEXTS} tweets, {FOLDS} folds × {len(GRID)} settings + 1 final fit")
    with tempfile.TemporaryDirectory() as workspace:
        started = time.perf_counter()
        path = base_bert(Path(workspace))
        scores: dict[tuple[float, int], list[float]] = {point: [] for point in GRID}
        folds = StratifiedKFold(FOLDS, shuffle=True, random_state=SEED).split(texts, labels)
        runs = 0
        for fold, (train, held_out) in enumerate(folds):
            for rate, epochs in GRID:
                settings = FineTuneSettings(learning_rate=rate, epochs=epochs, seed=SEED, device="cuda")
                model = fine_tune(path, [texts[i] for i in train], labels[train], 3, settings)
                predicted = predict_proba(model, [texts[i] for i in held_out]).argmax(axis=1)
                scores[(rate, epochs)].append(f1_score(labels[held_out], predicted, average="macro"))
                runs += 1
            print(f"  fold {fold + 1}: {time.perf_counter() - started:6.1f} s", flush=True)
        best = max(GRID, key=lambda point: np.mean(scores[point]))
        fine_tune(path, texts, labels, 3, FineTuneSettings(learning_rate=best[0], epochs=best[1], seed=SEED,
                                                           device="cuda"))
        total = time.perf_counter() - started
    print(f"{runs + 1} fine-tunings in {total:.0f} s ({total / 60:.1f} min); peak GPU memory "
          f"{torch.cuda.max_memory_allocated() / 2**20:.0f} MB; chosen learning rate {best[0]:g}, {best[1]} epochs "
          f"(cross-validated macro-F1 {np.mean(scores[best]):.3f}, random initial weights)")


if __name__ == "__main__":
    main()
