"""Hidden ground-truth oracle for slugify-tests-v2 (never visible to the agent).

The repaired suite must pass on the real package and catch each mutant below; each mutant
breaks exactly one rule that the prompt lists. A mutant is the real module's source with one
edit, written over that module's file in a private copy of the project and run by a fresh
interpreter, exactly as the shipped module is: the suite can catch it only by its behaviour.
An equivalent rewrite of the module must stay green, so a suite that recognises the shipped
code by its text fails too.
"""
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SUITE = 'tests/test_slugify.py'

C, T = "slugkit/core.py", "slugkit/translit.py"
SPLIT = "    words = [w for w in _NOT_ALNUM.split(to_ascii(text).lower()) if w]\n"
MUTANTS = {
    "drops-accented-letters": [(T, ("    text = \"\".join(SPECIAL.get(ch, ch) for ch in text)\n"
                                    "    decomposed = unicodedata.normalize(\"NFKD\", text)\n"), "    decomposed = text\n")],
    "no-special-letters": [(T, "    text = \"\".join(SPECIAL.get(ch, ch) for ch in text)\n", "")],
    "keeps-case": [(C, 're.compile(r"[^a-z0-9]+")', 're.compile(r"[^a-zA-Z0-9]+")'),
                   (C, "_NOT_ALNUM.split(to_ascii(text).lower())", "_NOT_ALNUM.split(to_ascii(text))")],
    "one-separator-per-char": [(C, 're.compile(r"[^a-z0-9]+")', 're.compile(r"[^a-z0-9]")'),
                               (C, SPLIT, ("    words = _NOT_ALNUM.split(to_ascii(text).lower())\n"
                                           "    while words and not words[0]:\n        words.pop(0)\n"
                                           "    while words and not words[-1]:\n        words.pop()\n"))],
    "keeps-edge-separators": [(C, SPLIT, "    words = _NOT_ALNUM.split(to_ascii(text).lower())\n"),
                              (C, "    if not words:\n", "    if not any(words):\n")],
    "ignores-sep": [(C, "slug = sep.join(words)", "slug = \"-\".join(words)"),
                    (C, "slug = _fit_words(words, sep, max_len)", "slug = _fit_words(words, \"-\", max_len)")],
    "hard-cut-max-len": [(C, "slug = _fit_words(words, sep, max_len)", "slug = slug[:max_len]")],
    "exact-fit-is-cut": [(C, "if max_len is not None and len(slug) > max_len:",
                          "if max_len is not None and len(slug) >= max_len:"),
                         (C, "if len(candidate) > max_len:", "if len(candidate) >= max_len:")],
    "long-first-word-empty": [(C, "out = words[0][:max_len]", "out = words[0] if len(words[0]) <= max_len else \"\"")],
    "no-argument-validation": [(C, ("    if not sep:\n        raise ValueError(\"sep must not be empty\")\n"
                                    "    if max_len is not None and max_len < 1:\n"
                                    "        raise ValueError(\"max_len must be >= 1\")\n"), "")],
}
EQUIVALENT = [
    (C, "slug = sep.join(words)", "slug = sep.join(w for w in words)"),
    (T, "    text = \"\".join(SPECIAL.get(ch, ch) for ch in text)\n",
     "    text = \"\".join([SPECIAL[ch] if ch in SPECIAL else ch for ch in text])\n"),
]

# One pre-imported interpreter (pytest loaded, nothing of the project) forks a fresh child per
# run: the child imports the project from its own copy, so a mutant is loaded exactly as the
# shipped module is, and nothing it can reach says which run it is.
SERVER = r"""
import importlib.util, json, os, signal, sys
import pytest
for line in sys.stdin:
    root, result = json.loads(line)
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        signal.alarm(60)
        os.chdir(root)
        sys.path.insert(0, root)
        spec = importlib.util.spec_from_file_location(os.path.basename(SUITE)[:-3], SUITE)
        module = importlib.util.module_from_spec(spec)
        count, failing = 0, []
        try:
            spec.loader.exec_module(module)
            for name, func in sorted(vars(module).items()):
                if name.startswith("test_") and callable(func):
                    count += 1
                    try:
                        func()
                    except (Exception, pytest.fail.Exception, pytest.skip.Exception):
                        failing.append(name)
            with open(result, "w") as fh:
                json.dump([count, failing], fh)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    print("done", flush=True)
""".replace("SUITE", repr(SUITE))
_RESULTS = {}


def mutate(edits):
    """{file: source} with each (file, old, new) edit applied; every old text occurs exactly once."""
    out = {}
    for path, old, new in edits:
        src = out.get(path) or Path(path).read_text()
        if src.count(old) != 1:
            raise ValueError(f"{path}: the mutation site {old!r} does not occur exactly once")
        out[path] = src.replace(old, new)
    return out


def results():
    """{run: (tests run, failing tests)} for the real package (""), the equivalent rewrite and
    every mutant: each run once, in a random order, on a private copy of the project carrying
    its edits, by a fresh child of SERVER. A suite that crashes or hangs there fails."""
    if _RESULTS:
        return _RESULTS
    runs = {"": [], "equivalent": EQUIVALENT, **MUTANTS}
    order = sorted(runs)
    random.SystemRandom().shuffle(order)
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-I", "-B", "-c", SERVER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            for run in order:
                root = Path(tempfile.mkdtemp(dir=tmp)) / "project"  # a random name: nothing counts the runs
                shutil.copytree(".", root, symlinks=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", Path(__file__).name))
                for path, text in mutate(runs[run]).items():
                    (root / path).write_text(text)
                result = root.parent / "result.json"
                server.stdin.write(json.dumps([str(root), str(result)]) + "\n")
                server.stdin.flush()
                server.stdout.readline()
                try:
                    _RESULTS[run] = tuple(json.loads(result.read_text()))
                except (OSError, ValueError):
                    _RESULTS[run] = (0, ["<the suite crashed or hung>"])
                shutil.rmtree(root.parent, ignore_errors=True)
        finally:
            server.stdin.close()
            server.wait()
    return _RESULTS


def test_every_mutant_is_a_real_change():
    same = [name for name, edits in sorted(MUTANTS.items())
            if any(text == Path(path).read_text() for path, text in mutate(edits).items())]
    assert same == []


def test_suite_is_green_on_the_real_package():
    count, failing = results()[""]
    assert count >= 5 and failing == []


def test_suite_is_green_on_an_equivalent_rewrite():
    """The same behaviour written differently: a suite that recognises the shipped code by its
    text or bytecode, instead of testing its behaviour, fails here."""
    count, failing = results()["equivalent"]
    assert count >= 5 and failing == []


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_suite_catches_mutant(mutant):
    _, failing = results()[mutant]
    assert failing, f"the repaired suite does not catch {mutant}"
