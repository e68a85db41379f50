"""Tests of guiapp/ui/steps/coding."""
