"""Tests of guiapp/ui/steps/findings."""
