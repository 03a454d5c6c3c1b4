"""Areas of plane shapes."""
import math

from geomkit.checks import require_non_negative


def circle_area(radius: float) -> float:
    """Area of a circle, rounded to two decimals.

    >>> circle_area(1)
    3.14
    """
    require_non_negative("radius", radius)
    return math.pi * radius ** 2


def rectangle_area(width: float, height: float) -> float:
    """Area of a rectangle; negative sizes count as 0.

    >>> rectangle_area(2, 3)
    6
    >>> rectangle_area(-1, 3)
    0
    """
    require_non_negative("width", width)
    require_non_negative("height", height)
    return width * height


def triangle_area(a: float, b: float, c: float) -> float:
    """Area of a triangle from its three sides (Heron's formula).

    >>> triangle_area(3, 4, 5)
    6
    """
    for name, side in (("a", a), ("b", b), ("c", c)):
        require_non_negative(name, side)
    if a + b < c or a + c < b or b + c < a:
        raise ValueError(f"sides {a}, {b}, {c} do not form a triangle")
    s = (a + b + c) / 2
    return math.sqrt(s * (s - a) * (s - b) * (s - c))
