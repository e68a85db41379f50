"""Applying a trained model to new texts, streamed (issue 9)."""
