import mod


def test_add():
    assert mod.add(2, 3) == 5


def test_scaled_small():
    assert mod.scaled(5) == 5
