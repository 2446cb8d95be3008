from decimal import Decimal

from pyshop.cart import Cart
from pyshop.pricing import price_cart, round_money


def test_round_money_half_up():
    assert round_money(Decimal("0.125")) == Decimal("0.13")


def test_price_cart_with_coupon():
    cart = Cart()
    cart.add("book", 2, Decimal("10.00"))
    cart.apply_coupon("welcome10")
    prices = price_cart(cart, "DE")
    assert prices["discount"] == Decimal("2.00")
    assert prices["total"] == Decimal("21.42")
