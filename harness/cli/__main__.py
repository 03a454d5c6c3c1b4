"""``python -m harness.cli``: the ``harness`` command, with the start-up signal guard of
``harness.cli.entry.main`` (a Ctrl-C during the imports is one line, exit 4)."""
import sys

from harness.cli.entry import main

sys.exit(main())
