"""``python -m guiapp`` starts the app; ``python -m guiapp health FILE`` and friends run headless."""

import sys

try:
    from guiapp.cli.entry import main
except KeyboardInterrupt:  # Ctrl-C before the command line is even read: one line, no traceback
    print("Stopped.", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
