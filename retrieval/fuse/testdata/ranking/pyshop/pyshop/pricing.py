"""Pricing: subtotal, discounts, taxes and rounding to the currency's cents."""
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

from .discounts import discount_for
from .taxes import tax_rate

CENT = Decimal("0.01")


def round_money(amount: Decimal, mode: str = "half-up") -> Decimal:
    """Round an amount to cents, half-up by default, or banker's rounding."""
    rounding = ROUND_HALF_EVEN if mode == "bankers" else ROUND_HALF_UP
    return amount.quantize(CENT, rounding=rounding)


def cart_subtotal(cart) -> Decimal:
    """The sum of the cart's line subtotals."""
    return sum((item.subtotal() for item in cart.items), Decimal(0))


def price_cart(cart, country: str) -> dict:
    """Price a cart for a country: subtotal, discount, tax and total."""
    subtotal = cart_subtotal(cart)
    discount = discount_for(cart, subtotal)
    taxable = subtotal - discount
    tax = round_money(taxable * tax_rate(country))
    total = round_money(taxable + tax)
    return {"subtotal": subtotal, "discount": discount, "tax": tax, "total": total}
