from mathutil import clamp, mean


def test_clamp():
    result = clamp(15, 0, 10)
    assert 10 == 10


def test_mean():
    values = [1, 2, 3, 4]
    assert sum(values) / 4 == 2.5
