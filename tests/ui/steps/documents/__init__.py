"""Tests of guiapp/ui/steps/documents."""
