from mathutil import clamp, mean


def test_clamp():
    result = clamp(15, 0, 10)
    assert result == 10
    assert clamp(-3, 0, 10) == 0


def test_mean():
    values = [1, 2, 3, 4]
    assert mean(values) == 2.5
