"""Run one pytest file against a copy of a tree, confined, and read the verdict from JUnit XML.

A run passes only if pytest exits 0 AND its JUnit report exists AND it counts at least one
test with no failure, error or skip. Exit code alone is not trusted: model-written code can
call ``os._exit(0)`` at import or skip a module. Workspace ``conftest.py``, ini files and
``sitecustomize`` are ignored (``--noconftest``, a harness-owned ``-c`` ini, ``python -I``),
so the agent cannot rewrite the verdict of a harness-owned test.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from harness.sandbox import Limits, open_up, run_confined


@dataclass
class TestVerdict:
    passed: bool
    tests: int
    failures: int
    errors: int
    skipped: int
    returncode: int
    wall_s: float
    output: str
    timed_out: bool = False
    confinement: str = "basic"

    def summary(self) -> dict:
        return {"passed": self.passed, "tests": self.tests, "failures": self.failures, "errors": self.errors,
                "skipped": self.skipped, "returncode": self.returncode, "wall_s": round(self.wall_s, 4),
                "timed_out": self.timed_out}


def _junit_counts(path: Path) -> tuple[int, int, int, int] | None:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    t = f = e = s = 0
    for su in suites:
        t += int(su.get("tests", 0))
        f += int(su.get("failures", 0))
        e += int(su.get("errors", 0))
        s += int(su.get("skipped", 0))
    return t, f, e, s


def run_pytest(tree: Path, test_file: Path, *, dest_rel: str, hide: tuple[Path, ...] = (),
               limits: Limits = Limits()) -> TestVerdict:
    """Copy ``tree`` to scratch, put ``test_file`` at ``dest_rel`` in it, run pytest confined."""
    with tempfile.TemporaryDirectory(prefix="hx-run-") as scratch:
        scratch = Path(scratch)
        work = scratch / "w"
        shutil.copytree(tree, work, symlinks=True)
        dest = work / dest_rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink():
            dest.unlink()
        shutil.copy2(test_file, dest)
        res = scratch / "res"
        res.mkdir()
        (res / "pytest.ini").write_text("[pytest]\naddopts =\n")
        open_up(scratch)
        res.chmod(0o777)
        argv = [sys.executable, "-I", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--noconftest",
                "-c", str(res / "pytest.ini"), "--rootdir", str(work), "-o", f"pythonpath={work}",
                f"--junitxml={res / 'junit.xml'}", str(dest)]
        r = run_confined(argv, work, hide=hide, limits=limits,
                         env_extra={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
        counts = _junit_counts(res / "junit.xml")
    output = (r.stdout + ("\n" + r.stderr if r.stderr.strip() else "")).strip()
    if counts is None:
        return TestVerdict(False, 0, 0, 0, 0, r.returncode, r.wall_s, output or "no test report", r.timed_out,
                           r.confinement)
    t, f, e, s = counts
    ok = r.returncode == 0 and not r.timed_out and t > 0 and f == 0 and e == 0 and s == 0
    return TestVerdict(ok, t, f, e, s, r.returncode, r.wall_s, output, r.timed_out, r.confinement)
