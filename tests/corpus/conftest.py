import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


import click  # noqa: E402
import pytest  # noqa: E402

from corpus.cli import corpus, register  # noqa: E402
from harness.cli.corpus_reviewer import reviewer_cmd  # noqa: E402


@pytest.fixture(scope="module")
def cli():
    """The ``corpus`` command group as ``harness corpus`` has it (with ``reviewer``, which
    ``harness.cli.cli`` attaches at import: without it here a test passed only after another file
    had imported the command line), for CliRunner."""
    @click.group()
    def main():
        pass
    register(main)
    corpus.add_command(reviewer_cmd)
    return main
