"""Small vector helpers over tuples of numbers."""
import math
from typing import Sequence


def dot(u: Sequence[float], v: Sequence[float]) -> float:
    """Dot product of two vectors of the same length.

    >>> dot((1, 2), (3, 4))
    11

    Vectors of different lengths raise ValueError:

    >>> dot((1, 2), (1, 2, 3))
    Traceback (most recent call last):
    ...
    ValueError: length mismatch: 2 != 3
    """
    if len(u) != len(v):
        raise ValueError(f"length mismatch: {len(u)} != {len(v)}")
    return sum(a * b for a, b in zip(u, v))


def norm(v: Sequence[float]) -> float:
    """Euclidean length, as a float.

    >>> norm((3, 4))
    5.0
    """
    return math.sqrt(dot(v, v))


def normalize(v: Sequence[float]) -> tuple[float, ...]:
    """Unit vector in the direction of v.

    >>> normalize((3, 4))
    (0.6, 0.8)

    The zero vector raises ValueError:

    >>> normalize((0, 0))
    Traceback (most recent call last):
    ...
    ValueError: cannot normalize the zero vector
    """
    length = norm(v)
    if length == 0:
        raise ValueError("cannot normalize the zero vector")
    return tuple(x / length for x in v)
