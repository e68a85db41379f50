"""Replication packages: a folder (or zip) that holds everything a reviewer needs to rerun a study
and see the same numbers — the study file, the data or its fingerprint, the codebook and codings,
the results, the trained models, the environment and a README. ``manifest`` holds the shared
format and checks, ``package`` writes a package, ``verify`` checks one without rerunning it.
"""
