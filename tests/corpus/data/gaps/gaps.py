"""One function per new fine operator (issue 35), each with a test gap only that operator shows:
tests/corpus/test_operators.py::test_each_new_operator_alone_reveals_its_gap."""
import copy
import functools


def first_negative(xs):
    for i, x in enumerate(xs):
        if x >= 0:
            continue
        return i
    return -1


def greet(name):
    return "Hi " + name


def identity():
    return lambda x: x


def kind(n):
    match n:
        case 0:
            return "zero"
        case _:
            return "other"


def options(v):
    return dict(verbose=v)


def snapshot(state):
    return copy.deepcopy(state)


@functools.cache
def square(n):
    return n * n


def flip(flag):
    return not flag


def first_set(a, b):
    return a if a is not None else b


def last_match(xs, want):
    found = None
    for x in xs:
        if x == want:
            found = x
    return found
