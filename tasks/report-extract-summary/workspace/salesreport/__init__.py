"""Plain-text sales reports per category."""
from salesreport.render import load_records, render_report

__all__ = ["load_records", "render_report"]
