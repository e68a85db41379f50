"""How big a study is before it runs: its fits, what they are, and the expected time.

The fits and their words come from the study's plan (``run_plan.py``), the time from
``estimates.py``: the header of the Run step, the log's first lines and ``textlab run`` all say
the sentence :meth:`RunSize.describe` gives. Above :data:`LARGE_RUN_FITS` fits, ``textlab run``
prints a warning and the app asks before it starts (neither refuses: a large grid can be what the
researcher wants). Where the caller passes this computer's load (``compute/machine_load.py``), the
time allows for the other programs that keep its cores busy and says so — or says that the load
could not be read.
"""

from __future__ import annotations

from dataclasses import dataclass

from guiapp.core.compute.machine_load import MachineLoad
from guiapp.core.experiment.speed.estimates import describe_duration
from guiapp.core.experiment.run.run_plan import RunPlan, plan_run
from guiapp.core.study.spec import ExperimentSpec

LARGE_RUN_FITS = 2_000


@dataclass(frozen=True)
class RunSize:
    plan: RunPlan
    load: MachineLoad | None = None  # how busy this computer was when the time was estimated (None: not asked)

    @property
    def fits(self) -> int:
        return self.plan.fits

    @property
    def seconds(self) -> float | None:  # None when the texts are not known yet
        if self.plan.seconds is None:
            return None
        return self.plan.seconds * (self.load.slowdown() if self.load is not None else 1.0)

    @property
    def load_words(self) -> str:
        """" (allowing for other programs, which keep 1.6 of its 2 cores busy …)", or "" when idle or not asked."""
        words = self.load.describe() if self.load is not None and self.seconds is not None else ""
        return f" ({words})" if words else ""

    @property
    def untimed_words(self) -> str:
        """" without the language-model server's answers", where a server's time is not in the estimate."""
        return " without the language-model server's answers" if self.plan.untimed else ""

    @property
    def large(self) -> bool:
        return self.fits > LARGE_RUN_FITS

    @property
    def duration(self) -> str:
        return "" if self.seconds is None else describe_duration(self.seconds)

    def describe(self) -> str:
        """"This study fits 163 models, about 2 minutes on this computer. The 3 models try …"."""
        time = f", {self.duration} on this computer{self.load_words}{self.untimed_words}" if self.duration else ""
        fits = (f"{self.fits:,} model{'s' if self.fits != 1 else ''}" if self.fits
                else "no models (the models chosen learn nothing from the coded texts)")
        return f"This study fits {fits}{time}. {self.plan.describe()}"

    def warning(self) -> str:
        time = (f" and takes {self.duration} on this computer{self.load_words}{self.untimed_words}"
                if self.duration else "")
        return (f"This is a large study: it fits {self.fits:,} models{time}. {self.plan.describe()} A grid with "
                "fewer values or fewer folds makes it quicker; press Ctrl+C to stop it.")


def count_fits(spec: ExperimentSpec, on_gpu: bool = False) -> int:
    """Every fit the study makes (fine-tunings included), summed over its models (``run_plan.py``)."""
    return plan_run(spec, gpu=on_gpu).fits


def estimate_run(
    spec: ExperimentSpec,
    n_train: int | None = None,
    n_test: int = 0,
    n_categories: int = 2,
    n_jobs: int | None = None,
    *,
    on_gpu: bool | None = False,
    mean_tokens: float | None = None,
    load: MachineLoad | None = None,
    multi_label: bool = False,
) -> RunSize:
    """The study's fits and, when the number of training texts is known, its expected seconds.
    ``on_gpu`` None: whether the Transformer gets a GPU is not known yet (see ``run_plan``).
    ``load``: how busy this computer is (``machine_load.read_load()``): the time allows for it and
    says so, or says that it could not be read."""
    return RunSize(plan_run(spec, n_train, n_test, n_categories, n_jobs, gpu=on_gpu, mean_tokens=mean_tokens,
                            multi_label=multi_label), load)
