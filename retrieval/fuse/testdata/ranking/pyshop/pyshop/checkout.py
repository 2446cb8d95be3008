"""Checkout: price the cart, charge the customer, record the order."""
from .payments import PaymentClient, PaymentDeclined
from .pricing import price_cart


def to_cents(amount) -> int:
    """An amount in the currency's minor unit."""
    return int(amount * 100)


def checkout(cart, country: str, token: str, client: PaymentClient) -> dict:
    """Charge the cart's total and return the order."""
    prices = price_cart(cart, country)
    try:
        charge_id = client.charge(to_cents(prices["total"]), cart.currency, token)
    except PaymentDeclined as e:
        return {"status": "declined", "reason": str(e)}
    return {"status": "paid", "charge": charge_id, **prices}
