"""Entry script for the PyInstaller bundle (installers/textlab.spec).

The bundle's executable takes the same arguments as ``python -m guiapp``: no arguments (or a
file) starts the app, ``TextLab self-test --quick``, ``TextLab run SPEC --out DIR`` … run headless.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    # scikit-learn/joblib may start worker processes; in a frozen app they re-run this executable,
    # and freeze_support() makes those children do their work instead of opening another window.
    multiprocessing.freeze_support()
    from guiapp.cli.entry import main

    sys.exit(main())
