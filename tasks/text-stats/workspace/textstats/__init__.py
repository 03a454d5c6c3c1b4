"""Plain-text statistics."""
from textstats.report import (average_word_length, reading_time_minutes, sentence_count,
                              summary, tokenize, top_words, word_count)

__all__ = ["average_word_length", "reading_time_minutes", "sentence_count", "summary",
           "tokenize", "top_words", "word_count"]
