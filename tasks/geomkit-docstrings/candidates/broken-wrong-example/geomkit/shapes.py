"""Areas of plane shapes."""
import math

from geomkit.checks import require_non_negative


def circle_area(radius: float) -> float:
    """Area of a circle (not rounded).

    >>> circle_area(1)
    3.141592653589793
    >>> round(circle_area(2), 4)
    12.5664

    Raises ValueError for a negative radius:

    >>> circle_area(-1)
    Traceback (most recent call last):
    ...
    ValueError: radius must be >= 0, got -1
    """
    require_non_negative("radius", radius)
    return math.pi * radius ** 2


def rectangle_area(width: float, height: float) -> float:
    """Area of a rectangle; a negative width or height raises ValueError.

    >>> rectangle_area(2, 3)
    6
    >>> rectangle_area(-1, 3)
    Traceback (most recent call last):
    ...
    ValueError: width must be >= 0, got -1
    """
    require_non_negative("width", width)
    require_non_negative("height", height)
    return width * height


def triangle_area(a: float, b: float, c: float) -> float:
    """Area of a triangle from its three sides (Heron's formula), as a float.

    >>> triangle_area(3, 4, 5)
    6

    Raises ValueError for a negative side or sides that do not form a triangle:

    >>> triangle_area(1, 1, 3)
    Traceback (most recent call last):
    ...
    ValueError: sides 1, 1, 3 do not form a triangle
    """
    for name, side in (("a", a), ("b", b), ("c", c)):
        require_non_negative(name, side)
    if a + b < c or a + c < b or b + c < a:
        raise ValueError(f"sides {a}, {b}, {c} do not form a triangle")
    s = (a + b + c) / 2
    return math.sqrt(s * (s - a) * (s - b) * (s - c))
