"""``python -m guiapp`` starts the app; ``python -m guiapp health FILE`` and friends run headless."""

from guiapp.cli.entry import main

raise SystemExit(main())
