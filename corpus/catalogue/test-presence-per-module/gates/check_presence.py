"""Gate: every non-test module has test_<module>.py that imports it and asserts on an imported name."""
import ast
import sys
from pathlib import Path

d = Path(sys.argv[1])
mods = sorted(p for p in d.glob("*.py") if not p.name.startswith("test_"))
if not mods:
    print("no modules found"); sys.exit(1)
probs = []
for m in mods:
    t = d / f"test_{m.stem}.py"
    if not t.is_file():
        probs.append(f"{m.name}: no {t.name}"); continue
    try:
        tree = ast.parse(t.read_text())
    except SyntaxError as exc:
        probs.append(f"{t.name}: {exc}"); continue
    imported = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module == m.stem:
            imported |= {a.asname or a.name for a in n.names}
        elif isinstance(n, ast.Import):
            imported |= {a.asname or a.name for a in n.names if a.name == m.stem}
    if not imported:
        probs.append(f"{t.name} does not import {m.stem}"); continue
    tests = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
    asserting = [f for f in tests if any(isinstance(a, ast.Assert) and
                 {x.id for x in ast.walk(a.test) if isinstance(x, ast.Name)} & imported
                 for a in ast.walk(f))]
    if not asserting:
        probs.append(f"{t.name}: no test asserts on an imported name")
if probs:
    print("\n".join(probs)); sys.exit(1)
print(f"ok: {len(mods)} module(s)")
