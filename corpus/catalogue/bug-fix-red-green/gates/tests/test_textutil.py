import textutil


def test_slugify_basic():
    assert textutil.slugify("Hello, World!") == "hello-world"


def test_slugify_unicode_and_runs():
    assert textutil.slugify("  Crème brûlée -- à la carte ") == "creme-brulee-a-la-carte"


def test_truncate_words():
    assert textutil.truncate_words("one two three four", 2) == "one two..."
    assert textutil.truncate_words("one two", 2) == "one two"
