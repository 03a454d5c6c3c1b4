"""Visible acceptance test for readme-examples-unitconv (the agent can see and run this)."""
import doctest
from pathlib import Path


def test_readme_examples_run():
    text = Path("README.md").read_text()
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", "README.md", 0)
    report = []
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=report.append)
    assert result.failed == 0, "".join(report)
    assert result.attempted >= 3
