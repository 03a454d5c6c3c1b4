"""slugify: titles to URL slugs (rules in CHANGELOG.md, version 2.0)."""
import re

from slugkit.translit import to_ascii

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def _fit_words(words: list[str], sep: str, max_len: int) -> str:
    """The longest prefix of whole words joined by sep within max_len (cut the first if needed)."""
    out = words[0][:max_len]
    for word in words[1:]:
        candidate = out + sep + word
        if len(candidate) > max_len:
            break
        out = candidate
    return out


def slugify(text: str, sep: str = "-", max_len: int | None = None) -> str:
    """Lower-case ASCII slug of text, words joined by sep, at most max_len characters."""
    if not sep:
        raise ValueError("sep must not be empty")
    if max_len is not None and max_len < 1:
        raise ValueError("max_len must be >= 1")
    words = [w for w in _NOT_ALNUM.split(to_ascii(text).lower()) if w]
    if not words:
        return ""
    slug = sep.join(words)
    if max_len is not None and len(slug) > max_len:
        slug = _fit_words(words, sep, max_len)
    return slug
