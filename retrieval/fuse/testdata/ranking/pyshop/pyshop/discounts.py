"""Coupons and volume discounts."""
from decimal import Decimal

COUPONS = {
    "WELCOME10": Decimal("0.10"),
    "SPRING25": Decimal("0.25"),
}

VOLUME_TIERS = [(Decimal("500"), Decimal("0.05")), (Decimal("1000"), Decimal("0.08"))]


def coupon_rate(code):
    """The discount rate of a coupon code, 0 for an unknown code."""
    if code is None:
        return Decimal(0)
    return COUPONS.get(code, Decimal(0))


def volume_rate(subtotal: Decimal) -> Decimal:
    """The volume discount rate for a subtotal: the highest tier reached."""
    rate = Decimal(0)
    for threshold, tier_rate in VOLUME_TIERS:
        if subtotal > threshold:
            rate = tier_rate
    return rate


def discount_for(cart, subtotal: Decimal) -> Decimal:
    """The discount of a cart: the better of its coupon and its volume rate."""
    rate = max(coupon_rate(cart.coupon), volume_rate(subtotal))
    return subtotal * rate
