from mathutil import clamp, mean


def test_clamp():
    assert clamp is not None


def test_mean():
    assert callable(mean)
