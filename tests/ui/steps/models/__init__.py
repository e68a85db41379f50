"""Tests of guiapp/ui/steps/models."""
