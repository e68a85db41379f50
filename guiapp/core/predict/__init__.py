"""Applying trained models to new texts: opening a model from its folder (a fine-tuned Transformer,
a conventional or a combined model), finding a finished study's models, predicting in chunks so
memory stays flat, and warning when the new texts do not look like the coded ones."""
