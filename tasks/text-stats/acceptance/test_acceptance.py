"""Visible acceptance test for text-stats."""
from textstats import summary, top_words, word_count


def test_top_words_by_count():
    text = "apple banana apple cherry banana apple"
    assert top_words(text, 2) == [("apple", 3), ("banana", 2)]


def test_ties_are_alphabetical():
    assert top_words("b a c a b", 3) == [("a", 2), ("b", 2), ("c", 1)]


def test_summary_still_works():
    s = summary("one two. three!", n=1)
    assert s["words"] == 3
    assert s["sentences"] == 2
    assert word_count("") == 0
