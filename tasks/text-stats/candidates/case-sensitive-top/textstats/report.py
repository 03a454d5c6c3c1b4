"""Statistics for plain-text documents."""
from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z0-9']+")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
WORDS_PER_MINUTE = 200


def tokenize(text: str) -> list[str]:
    """Return the words of text in order (runs of letters, digits and apostrophes)."""
    return _WORD.findall(text)


def word_count(text: str) -> int:
    """Number of words in text."""
    return len(tokenize(text))


def sentence_count(text: str) -> int:
    """Number of sentences: terminal punctuation runs, or 1 for non-empty text without any."""
    ends = len(_SENTENCE_END.findall(text))
    if ends == 0 and text.strip():
        return 1
    return ends


def average_word_length(text: str) -> float:
    """Mean word length in characters (0.0 for text with no words)."""
    words = tokenize(text)
    if not words:
        return 0.0
    return sum(len(w) for w in words) / len(words)


def reading_time_minutes(text: str) -> float:
    """Estimated reading time at WORDS_PER_MINUTE, rounded to one decimal."""
    return round(word_count(text) / WORDS_PER_MINUTE, 1)


def _frequencies(words: list[str]) -> Counter:
    """Count occurrences of each word."""
    return Counter(words)


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """The n most frequent words with their counts."""
    if n <= 0:
        return []
    counts = _frequencies(tokenize(text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]


def summary(text: str, n: int = 3) -> dict:
    """All statistics for text in one dictionary."""
    return {
        "words": word_count(text),
        "sentences": sentence_count(text),
        "average_word_length": round(average_word_length(text), 2),
        "reading_time_minutes": reading_time_minutes(text),
        "top_words": top_words(text, n),
    }
