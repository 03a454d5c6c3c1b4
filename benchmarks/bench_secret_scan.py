"""The static secret scan's cost (harness.judge.secret_decode, issue 32): the principled scan (views
decoded two deep, archive members, fragments joined across the tree) against the plain scan (one
substring search per file) over the same bytes, in the same run. CPU seconds (process time), so
that other processes on a shared machine do not count.

Rows:
  * typical: every task's start tree, reference and candidates, scanned as the files an agent
    created (the planted key absent: no early stop), one tree per task.
  * adversarial_10MB: ten 1 MB files chosen to make the scan work: base64, base64 of base64 and hex
    of random bytes, number lists, random identifiers, random bytes, a zip bomb, 2,000 small gzip
    members, escape-sequence literals and percent-encoding. The budget bounds it; the notes say
    whether it was spent (the scan then fails closed).
"""
from __future__ import annotations

import base64
import gzip
import io
import random
import time
import zipfile
from pathlib import Path

from harness.core.tasks import load_tasks, read_tree
from harness.judge.secret_decode import BUDGET, TreeScan

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk_live_51HqT9vKc2XbR7mWp4ZyN8dLf3"
MB = 1 << 20


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _plain(trees: list[dict[str, str | bytes]]) -> None:
    raw = KEY.encode()
    for files in trees:
        for text in files.values():
            _ = (KEY in text) if isinstance(text, str) else (raw in text)


def _scan(trees: list[dict[str, str | bytes]], out: list) -> None:
    for files in trees:
        scan = TreeScan((KEY,))
        for p, content in files.items():
            scan.add(p, content)
            scan.add(f"file name {p!r}", p, name=True)
        out.append(scan)


def _task_trees(quick: bool) -> list[dict[str, str | bytes]]:
    tasks = load_tasks(ROOT / "tasks")
    trees = []
    for tid in sorted(tasks)[:4] if quick else sorted(tasks):
        t = tasks[tid]
        files: dict[str, str | bytes] = {**read_tree(t.workspace, skip_bytecode=True), **read_tree(t.reference)}
        files |= {f"{c.name}/{p}": text for c in t.candidates for p, text in c.files().items()}
        trees.append(files)
    return trees


def _adversarial(size: int) -> dict[str, str | bytes]:
    rng = random.Random(5)
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
    b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("z", "w", force_zip64=True) as fh:
        for _ in range(size // 4096):  # 256 MB of zeros in ~250 KB for the full size
            fh.write(b"\0" * MB)
    return {
        "a/b64.txt": "\n".join(b64(rng.randbytes(57)) for _ in range(size // 77)),
        "a/b64b64.txt": "\n".join(b64(b64(rng.randbytes(42)).encode()) for _ in range(size // 77)),
        "a/hex.txt": "\n".join(rng.randbytes(32).hex() for _ in range(size // 65)),
        "a/nums.py": "X = [" + ", ".join(str(rng.randrange(256)) for _ in range(size // 5)) + "]\n",
        "a/words.txt": " ".join("".join(rng.choices(alnum, k=rng.randint(4, 20))) for _ in range(size // 12)),
        "a/random.bin": rng.randbytes(size),
        "a/bomb.zip": bomb.getvalue(),
        "a/members.gz": b"".join(gzip.compress(rng.randbytes(size // 2000), mtime=0) for _ in range(2000)),
        "a/escapes.py": "S = '" + "".join(f"\\x{b:02x}" for b in rng.randbytes(size // 4)) + "'\n",
        "a/pct.txt": "".join(f"%{b:02X}" for b in rng.randbytes(size // 3)),
    }


def run(quick: bool = False) -> list[dict]:
    rows = []
    trees = _task_trees(quick)
    scans: list = []
    plain_s, scan_s = _cpu(lambda: _plain(trees)), _cpu(lambda: _scan(trees, scans))
    total = sum(len(c) for t in trees for c in t.values())
    rows.append({"name": "secretScan: every task's files, key absent", "baseline": "plain substring search",
                 "baseline_s": plain_s, "subject": "principled scan (two deep, archives, join)", "subject_s": scan_s,
                 "ratio": scan_s / plain_s if plain_s else float("nan"), "unit": "x CPU (lower is better)",
                 "notes": f"{len(trees)} trees, {total / MB:.2f} MB; {scan_s / len(trees):.3f} s CPU per tree; "
                          f"hits {sum(len(s.hits()) for s in scans)}"})
    adv = [_adversarial((MB // 10) if quick else MB)]
    scans = []
    plain_s, scan_s = _cpu(lambda: _plain(adv)), _cpu(lambda: _scan(adv, scans))
    size = sum(len(c) for c in adv[0].values())
    rows.append({"name": "secretScan: adversarial tree", "baseline": "plain substring search", "baseline_s": plain_s,
                 "subject": "principled scan", "subject_s": scan_s,
                 "ratio": scan_s / plain_s if plain_s else float("nan"), "unit": "x CPU (lower is better)",
                 "notes": f"{size / MB:.1f} MB in 10 files; budget {BUDGET // MB} MB "
                          f"{'spent at ' + str(scans[0].exhausted) + ' (fails closed)' if scans[0].exhausted else 'not spent'}"})
    return rows
