"""Reports over loaded transactions."""
from collections import defaultdict


def totals_by_category(transactions):
    """{category: total cents}, categories in first-seen order."""
    totals = defaultdict(int)
    for t in transactions:
        totals[t.category] += t.cents
    return dict(totals)


def balance_cents(transactions):
    """Sum of all amounts in cents."""
    return sum(t.cents for t in transactions)
