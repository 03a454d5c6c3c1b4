"""Small vector helpers over tuples of numbers."""
import math
from typing import Sequence


def dot(u: Sequence[float], v: Sequence[float]) -> float:
    """Dot product; extra components of the longer vector are ignored.

    >>> dot((1, 2), (3, 4))
    11
    >>> dot((1, 2), (1, 2, 3))
    5
    """
    if len(u) != len(v):
        raise ValueError(f"length mismatch: {len(u)} != {len(v)}")
    return sum(a * b for a, b in zip(u, v))


def norm(v: Sequence[float]) -> float:
    """Euclidean length.

    >>> norm((3, 4))
    5
    """
    return math.sqrt(dot(v, v))


def normalize(v: Sequence[float]) -> tuple[float, ...]:
    """Unit vector in the direction of v."""
    length = norm(v)
    if length == 0:
        raise ValueError("cannot normalize the zero vector")
    return tuple(x / length for x in v)
