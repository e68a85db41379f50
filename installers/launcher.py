"""Entry script for the PyInstaller bundle (installers/textlab.spec).

The bundle's executable takes the same arguments as ``python -m guiapp``: no arguments (or a
file) starts the app, ``TextLab self-test --quick``, ``TextLab run SPEC --out DIR`` … run headless.

Two things only a frozen app needs:

* The engine's worker processes (loky, behind joblib) and loky's resource tracker are started by
  running ``sys.executable`` like a Python interpreter: ``-m joblib.externals.loky.backend.
  popen_loky_posix --process-name … --pipe N`` and ``-c "from joblib.externals.loky.backend.
  resource_tracker import main; main(…)"``. In the bundle ``sys.executable`` is TextLab itself,
  whose argument parser would reject those, so every grid search and fit in worker processes
  failed (TerminatedWorkerError). ``multiprocessing.freeze_support()`` handles only the standard
  library's own helpers; the loky ones are run here.
* Loading any Transformer imports ``torch._dynamo`` (transformers decorates a class with
  ``torch.compiler.disable``), whose import creates PyTorch's compiler cache folder, by default
  ``/tmp/torchinductor_<user>``. TextLab never compiles; the folder goes to TextLab's own cache
  folder instead (``TEXTLAB_CACHE_DIR`` or the platform's user cache folder), unless
  ``TORCHINDUCTOR_CACHE_DIR`` is already set.
* PyInstaller's run-time hook for matplotlib (which Captum imports) makes a folder in ``/tmp`` for
  matplotlib's settings before this script runs, and removes it only at a normal exit: an app that
  is killed (a logout, a crash, the smoke test's ``kill``) leaves an empty ``/tmp/tmpXXXXXXXX``
  behind. The empty folder is removed at once and matplotlib's settings go to TextLab's cache folder.
"""

import multiprocessing
import os
import sys

LOKY_WORKER_MODULES = ("joblib.externals.loky.backend.popen_loky_posix",)
LOKY_COMMAND_PREFIXES = ("from joblib.externals.loky.backend.resource_tracker import main",)


def run_loky_helper(argv: list[str]) -> bool:
    """Run a loky worker or resource tracker started as ``TextLab -m …`` / ``TextLab … -c …``;
    False when ``argv`` is not one (it never returns otherwise: the helper exits)."""
    if len(argv) >= 3 and argv[1] == "-m" and argv[2] in LOKY_WORKER_MODULES:
        import runpy

        sys.argv = [argv[0], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
        sys.exit(0)
    if "-c" in argv:
        index = argv.index("-c")
        if index + 1 < len(argv) and argv[index + 1].startswith(LOKY_COMMAND_PREFIXES):
            sys.argv = [argv[0], *argv[index + 2:]]
            exec(argv[index + 1], {"__name__": "__main__"})
            sys.exit(0)
    return False


def torch_cache_outside_tmp() -> None:
    if "TORCHINDUCTOR_CACHE_DIR" in os.environ:
        return
    try:
        from guiapp.core.locations import cache_dir

        os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir() / "torch")
    except Exception:  # never keep the app from starting over a cache folder
        pass


def matplotlib_settings_outside_tmp() -> None:
    import tempfile
    from pathlib import Path

    made = os.environ.get("MPLCONFIGDIR")
    if not made or Path(made).parent.resolve() != Path(tempfile.gettempdir()).resolve():
        return  # not the run-time hook's folder (set by the user, or no matplotlib in the bundle)
    try:
        from guiapp.core.locations import cache_dir

        settings = cache_dir() / "matplotlib"
        settings.mkdir(parents=True, exist_ok=True)
        os.environ["MPLCONFIGDIR"] = str(settings)
        Path(made).rmdir()  # empty: nothing has used it yet (the hook's own clean-up at exit then finds nothing)
    except Exception:  # never keep the app from starting over a settings folder
        pass


if __name__ == "__main__":
    # scikit-learn/joblib may start worker processes; in a frozen app they re-run this executable,
    # and freeze_support() makes those children do their work instead of opening another window.
    multiprocessing.freeze_support()
    run_loky_helper(sys.argv)
    torch_cache_outside_tmp()
    matplotlib_settings_outside_tmp()
    from guiapp.cli.entry import main

    sys.exit(main())
