"""Tests of guiapp/ui/steps/run."""
