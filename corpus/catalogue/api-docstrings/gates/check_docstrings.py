import ast
import sys
from pathlib import Path

REQUIRED = {"create_user", "get_user", "delete_user"}
p = Path(sys.argv[1])
if not p.is_file():
    print("absent"); sys.exit(1)
try:
    tree = ast.parse(p.read_text())
except SyntaxError as exc:
    print(exc); sys.exit(1)
defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
missing = REQUIRED - {d.name for d in tree.body if isinstance(d, ast.FunctionDef)}
undoc = [d.name for d in defs if not d.name.startswith("_") and not (ast.get_docstring(d) or "").strip()]
if missing or undoc:
    print(f"missing {sorted(missing)}; undocumented {undoc}"); sys.exit(1)
print("ok")
