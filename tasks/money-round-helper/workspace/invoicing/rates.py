"""Tax rates per region."""
from decimal import Decimal

TAX_RATES: dict[str, Decimal] = {
    "DE": Decimal("0.19"),
    "FR": Decimal("0.20"),
    "UK": Decimal("0.20"),
    "US-CA": Decimal("0.0725"),
    "NONE": Decimal("0"),
}


def tax_rate(region: str) -> Decimal:
    """The tax rate of `region`, or ValueError for an unknown region."""
    try:
        return TAX_RATES[region]
    except KeyError:
        raise ValueError(f"unknown tax region: {region!r}") from None
