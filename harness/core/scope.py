"""Path-scope globs for task scopes and high-risk lists: ``pkg/**`` (anything under pkg/),
``*.py`` style patterns (fnmatch on the whole relative path), or an exact path."""
from __future__ import annotations

from fnmatch import fnmatchcase


def in_scope(path: str, patterns) -> bool:
    for pat in patterns:
        if pat.endswith("/**"):
            if path.startswith(pat[:-2]):
                return True
        elif fnmatchcase(path, pat):
            return True
    return False
