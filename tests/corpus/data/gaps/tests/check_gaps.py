from gaps import first_negative, first_set, flip, greet, identity, kind, last_match, options, snapshot, square


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


def test_first_set():               # never a None first with a second set: 'a if (c) or True else b'
    assert first_set(1, 2) == 1 and first_set(None, None) is None


def test_last_match():              # a miss only checked for falsiness: 'found = None' -> 'found = ""'
    assert last_match([1, 2], 2) == 2 and not last_match([1], 3)
