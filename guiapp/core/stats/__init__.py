"""Statistics for reviewers: paired tests between models, multiple-testing correction, agreement
between coders, and how well a model does in subgroups of texts. Pure numpy/scipy; import the
modules themselves (nothing is re-exported here, so importing the package stays cheap)."""
