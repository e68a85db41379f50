"""Tests of the codebook language models."""
