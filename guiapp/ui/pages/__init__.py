"""The steps of a study, one page each."""
