"""Aggregate sale records per category (no formatting here)."""


def summarize(records: list[dict]) -> dict:
    """{"rows": [(category, total_cents, count), ...], "total": int, "count": int}.

    Rows are ordered by total descending, ties by category name ascending. A record without a
    non-empty str category, or whose amount is not an int (bools excluded), raises ValueError.
    """
    totals: dict[str, int] = {}
    counts: dict[str, int] = {}
    for record in records:
        category = record.get("category")
        amount = record.get("amount")
        if not isinstance(category, str) or not category:
            raise ValueError(f"record without a category: {record!r}")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValueError(f"amount must be int cents: {record!r}")
        totals[category] = totals.get(category, 0) + amount
        counts[category] = counts.get(category, 0) + 1
    ordered = sorted(totals, key=lambda c: (totals[c], c))
    return {
        "rows": [(c, totals[c], counts[c]) for c in ordered],
        "total": sum(totals.values()),
        "count": sum(counts.values()),
    }
