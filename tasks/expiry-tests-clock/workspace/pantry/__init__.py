"""Best-before tracking."""
from pantry.expiry import days_left, expiring_soon, is_expired, load_items

__all__ = ["days_left", "expiring_soon", "is_expired", "load_items"]
