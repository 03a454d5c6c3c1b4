from gaps import first_negative, flip, greet, identity, kind, options, snapshot, square


def test_first_negative():          # never a negative after a non-negative: continue -> break
    assert first_negative([-2, 5]) == 0
    assert first_negative([0, 3]) == -1
    assert first_negative([]) == -1


def test_greet():                   # compared case-blind: "Hi " -> "HI "
    assert greet("Bob").lower() == "hi bob"


def test_identity():                # only a falsy argument: lambda x: x -> lambda x: None
    assert callable(identity()) and not identity()(0)


def test_kind():                    # kind(0) only checked for truth: case 0 removable
    assert kind(1) == "other" and kind(0)


def test_options():                 # the key is never read: dict(verbose=...) -> dict(verboseXX=...)
    assert True in options(True).values()


def test_snapshot():                # a flat state: deepcopy -> copy
    s = {"a": 1}
    assert snapshot(s) == s and snapshot(s) is not s


def test_square():                  # the cache is never observed: @functools.cache removable
    assert square(3) == 9


def test_flip():                    # flip(True) only checked not to be True: not -> ~
    assert flip(False) and flip(True) is not True
