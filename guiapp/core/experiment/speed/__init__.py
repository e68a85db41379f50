"""How long a study's work takes on this computer: the speeds measured here and their cache, a short
probe of the study's own work, and the time estimates the Models and Run steps show before a run."""
