"""Invoice arithmetic in exact decimals."""
from invoicing.invoice import discount_amount, invoice_total, line_total, tax_amount

__all__ = ["discount_amount", "invoice_total", "line_total", "tax_amount"]
