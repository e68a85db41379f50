"""SetFit (Tunstall et al. 2022): a sentence model fine-tuned on pairs of coded texts, then a
logistic regression on its vectors — a model that learns from few coded texts.

- :class:`SetFitSettings` (``settings.py``), :func:`train_setfit` (``training.py``) →
  :class:`SetFitModel` (``model.py``: ``predict_proba``, ``decide``, ``save``);
- :func:`load_setfit` (``loading.py``) opens a saved folder, recognised by :data:`SETFIT_FILE`.

The names are imported on first use, so that asking whether a folder holds a SetFit model does
not load torch.
"""

from __future__ import annotations

from guiapp.core.models.lazy_names import names_on_first_use

_WHERE = {
    "SETFIT_FILE": "folder",
    "SetFitSettings": "settings",
    "SetFitModel": "model",
    "train_setfit": "training",
    "load_setfit": "loading",
}

__getattr__ = names_on_first_use(__name__, _WHERE)

__all__ = ["SETFIT_FILE", "SetFitModel", "SetFitSettings", "load_setfit", "train_setfit"]
