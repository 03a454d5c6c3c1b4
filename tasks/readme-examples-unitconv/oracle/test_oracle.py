"""Hidden ground-truth oracle for readme-examples-unitconv (never visible to the agent)."""
import doctest
import re
from pathlib import Path

import unitconv


def _examples():
    return doctest.DocTestParser().get_examples(Path("README.md").read_text(), "README.md")


def test_all_examples_pass():
    text = Path("README.md").read_text()
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
    assert result.attempted >= 6


def test_every_public_function_has_an_example():
    called = set()
    for ex in _examples():
        called |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", ex.source))
    missing = [name for name in unitconv.__all__ if name not in called]
    assert not missing, f"no README example calls {missing}"


def test_error_behaviour_documented_truthfully():
    text = Path("README.md").read_text()
    assert "KeyError" not in text
    errors = [ex for ex in _examples() if ex.exc_msg is not None]
    assert any("ValueError" in (ex.want + ex.exc_msg) and "unknown unit" in ex.exc_msg for ex in errors)


def test_no_stale_names():
    sources = "".join(ex.source for ex in _examples())
    for stale in ("c_to_f", "f_to_c", "convert("):
        assert stale not in sources.replace("convert_length(", "")


def test_code_unchanged():
    assert unitconv.convert_length(5, "km", "mi") == 3.107
    assert unitconv.to_fahrenheit(100) == 212.0 and unitconv.to_celsius(-40) == -40.0
