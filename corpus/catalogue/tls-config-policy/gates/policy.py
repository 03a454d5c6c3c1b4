import json
from pathlib import Path

BAD = ("RC4", "DES", "NULL", "EXPORT")


def check(artifact):
    p = Path(artifact)
    if not p.is_file():
        return False
    try:
        ls = json.loads(p.read_text())["listeners"]
    except (ValueError, KeyError, TypeError):
        return False
    if not isinstance(ls, list) or not ls:
        return False
    for l in ls:
        if not isinstance(l, dict) or l.get("min_version") not in ("TLS1.2", "TLS1.3"):
            return False
        c = l.get("ciphers")
        if not isinstance(c, list) or not c or any(not isinstance(x, str) or any(b in x.upper() for b in BAD) for x in c):
            return False
        h = l.get("hsts_max_age_s")
        if not isinstance(h, int) or isinstance(h, bool) or h < 31536000:
            return False
    return True
