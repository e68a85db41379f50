"""The study being worked on, shared by every step of the window: what it holds (``study_session``),
how opened files fill it (``study_files``), and the checks that keep results with their data
(``data_checks``)."""
