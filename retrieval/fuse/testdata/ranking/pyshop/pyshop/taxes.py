"""Value-added tax rates by country."""
from decimal import Decimal

VAT = {
    "DE": Decimal("0.19"),
    "FR": Decimal("0.20"),
    "NL": Decimal("0.21"),
    "LU": Decimal("0.17"),
}


class UnknownCountry(KeyError):
    """A country without a known tax rate."""


def tax_rate(country: str) -> Decimal:
    """The VAT rate of a two-letter country code."""
    try:
        return VAT[country.upper()]
    except KeyError:
        raise UnknownCountry(f"no VAT rate for country {country!r}") from None
