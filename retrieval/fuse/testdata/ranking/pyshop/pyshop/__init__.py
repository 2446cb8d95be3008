"""pyshop: carts, prices and payments."""
from .cart import Cart, LineItem
from .pricing import price_cart

__all__ = ["Cart", "LineItem", "price_cart"]
