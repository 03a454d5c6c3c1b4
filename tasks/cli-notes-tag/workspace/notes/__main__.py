import sys

from notes.cli import main

sys.exit(main())
