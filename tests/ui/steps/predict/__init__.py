"""Tests of guiapp/ui/steps/predict."""
