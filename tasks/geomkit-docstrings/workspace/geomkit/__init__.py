"""Plane geometry helpers."""
from geomkit.shapes import circle_area, rectangle_area, triangle_area
from geomkit.vectors import dot, norm, normalize

__all__ = ["circle_area", "dot", "norm", "normalize", "rectangle_area", "triangle_area"]
