import sys

from csvsum.cli import main

sys.exit(main())
