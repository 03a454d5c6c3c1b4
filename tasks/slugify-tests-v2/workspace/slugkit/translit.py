"""Transliterate Latin letters to ASCII."""
import unicodedata

SPECIAL = {"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D"}


def to_ascii(text: str) -> str:
    """ASCII approximation of text: accents removed, special letters spelled out, rest dropped."""
    text = "".join(SPECIAL.get(ch, ch) for ch in text)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if ch.isascii() and not unicodedata.combining(ch))
