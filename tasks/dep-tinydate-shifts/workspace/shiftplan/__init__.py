"""Business-day arithmetic for shift planning."""
from shiftplan.calendar import business_days_between, is_business_day, next_business_day
from shiftplan.holidays import load_holidays

__all__ = ["business_days_between", "is_business_day", "load_holidays", "next_business_day"]
