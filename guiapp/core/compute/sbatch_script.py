"""``sbatch_script``: a SLURM batch script that runs a whole study on a cluster whose login node
forbids long processes.

The script is a small "driver" job (2 cores, 4 GB): it runs the ``setup`` lines, checks the data
against ``SHA256SUMS``, and runs ``textlab run study.toml --out results --cluster slurm …``, which
submits the Dask worker jobs from inside the driver job (allowed on almost all clusters) and
releases them when the study ends. Every value on the command line is shell-quoted; values in
``#SBATCH`` lines (which sbatch reads itself, not the shell) must be plain names.
"""

from __future__ import annotations

import re
import shlex

from guiapp.core.errors import UserError
from guiapp.core.study.sections import ClusterSpec

DRIVER_JOB_NAME = "textlab-study"
DRIVER_CORES = 2
DRIVER_MEMORY = "4G"
SCRIPT_NAME = "run-on-cluster.sbatch"
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_.,:@+=/-]+$")  # what an #SBATCH value may hold


def _directive_value(value: str, what: str, option: str) -> str:
    if not _PLAIN_NAME.match(value):
        raise UserError(
            f"The {what} “{value}” cannot go into a SLURM job script: it holds spaces, quotes or other "
            "signs SLURM names never have.",
            f"Write the {what} exactly as the cluster's documentation names it (e.g. {option}=mylab).",
        )
    return value


def textlab_command(spec_name: str, out: str, cluster: ClusterSpec) -> list[str]:
    """The words of the ``textlab run`` line the driver job runs (unquoted)."""
    words = ['"$PY"', "-m", "guiapp"] if cluster.python else ["textlab"]
    words += ["run", spec_name, "--out", out, "--cluster", "slurm",
              "--workers", str(cluster.workers),
              "--cores-per-worker", str(cluster.cores_per_worker),
              "--gpus-per-worker", str(cluster.gpus_per_worker),
              "--memory", cluster.memory.replace(" ", ""),
              "--walltime", cluster.walltime]
    if cluster.queue:
        words += ["--queue", cluster.queue]
    if cluster.account:
        words += ["--account", cluster.account]
    if cluster.python:
        words += ["--worker-python", cluster.python]
    for line in cluster.setup:
        words += ["--worker-setup", line]
    return words


def sbatch_script(spec_name: str, study_file: str, out: str, cluster: ClusterSpec) -> str:
    """The batch script's text: ``sbatch`` it from the folder that holds ``study_file``.

    ``spec_name`` names the study in the script's comments; ``study_file`` is the study file's
    name relative to the folder; ``out`` the results folder to write there.
    """
    cluster.check()
    directives = [
        f"--job-name={DRIVER_JOB_NAME}",
        f"--time={cluster.walltime}",
        "--ntasks=1",
        f"--cpus-per-task={DRIVER_CORES}",
        f"--mem={DRIVER_MEMORY}",
        f"--output={DRIVER_JOB_NAME}-%j.log",
    ]
    if cluster.queue:
        directives.append(f"--partition={_directive_value(cluster.queue, 'partition', '--partition')}")
    if cluster.account:
        directives.append(f"--account={_directive_value(cluster.account, 'account', '--account')}")
    title = " ".join(spec_name.split()) or "a TextLab study"  # one line, whatever the name holds
    lines = [
        "#!/bin/bash",
        *(f"#SBATCH {directive}" for directive in directives),
        "#",
        f"# Runs the TextLab study “{title}” on this cluster. Submit it from this folder with:",
        f"#     sbatch {SCRIPT_NAME}",
        "# This job is a small driver: it asks SLURM for the worker jobs that do the work",
        f"# ({cluster.describe()[:-1].replace(' (', ': ', 1) if cluster.describe().endswith(')') else cluster.describe()})",
        "# and releases them when the study ends.",
        "# The results appear in the folder " + out + "/ next to this script; see README.txt.",
        "",
        "set -euo pipefail",
        "",
    ]
    if cluster.setup:
        lines += ["# Setup lines from the study (run with unset variables allowed: module and conda need it)",
                  "set +u", *cluster.setup, "set -u", ""]
    lines += ['cd "${SLURM_SUBMIT_DIR:-.}"  # the folder sbatch was run from', ""]
    lines += ["# The data must be the files that were prepared (a copy that broke on the way would give other results).",
              "if command -v sha256sum >/dev/null; then",
              "    sha256sum --quiet -c SHA256SUMS",
              "fi",
              ""]
    if cluster.python:
        lines += [f"PY={shlex.quote(cluster.python)}",
                  'if ! "$PY" -c "import guiapp" 2>/dev/null; then',
                  '    echo "TextLab is not installed for $PY; see README.txt, step 2." >&2',
                  "    exit 2",
                  "fi"]
    else:
        lines += ["if ! command -v textlab >/dev/null; then",
                  '    echo "The textlab command is not found: install TextLab and activate it in a setup line; '
                  'see README.txt, step 2." >&2',
                  "    exit 2",
                  "fi"]
    words = textlab_command(study_file, out, cluster)
    quoted = [word if word == '"$PY"' else shlex.quote(word) for word in words]
    lines += ["", _wrapped(quoted), ""]
    return "\n".join(lines)


def _wrapped(words: list[str]) -> str:
    """The command with one option (and its value) per continued line, for reading."""
    parts: list[str] = []
    current: list[str] = []
    for word in words:
        if word.startswith("--") and current and any(w.startswith("--") or w == "run" for w in current):
            parts.append(" ".join(current))
            current = []
        current.append(word)
    parts.append(" ".join(current))
    return " \\\n    ".join(parts)
