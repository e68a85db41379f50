"""Tests of guiapp/core/predict."""
