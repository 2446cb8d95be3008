"""Shopping carts and their line items."""
from dataclasses import dataclass, field
from decimal import Decimal


class CartError(Exception):
    """Raised when a cart operation is not allowed."""


@dataclass
class LineItem:
    sku: str
    quantity: int
    unit_price: Decimal

    def subtotal(self) -> Decimal:
        """The line's price before discounts and taxes."""
        return self.unit_price * self.quantity


@dataclass
class Cart:
    currency: str = "EUR"
    items: list = field(default_factory=list)
    coupon: str | None = None

    def add(self, sku: str, quantity: int, unit_price: Decimal) -> LineItem:
        """Add quantity of sku; adding an existing sku raises its quantity."""
        if quantity <= 0:
            raise CartError(f"quantity must be positive, got {quantity}")
        for item in self.items:
            if item.sku == sku:
                item.quantity += quantity
                return item
        item = LineItem(sku, quantity, unit_price)
        self.items.append(item)
        return item

    def remove(self, sku: str) -> None:
        """Remove every unit of sku from the cart."""
        before = len(self.items)
        self.items = [i for i in self.items if i.sku != sku]
        if len(self.items) == before:
            raise CartError(f"no item {sku} in the cart")

    def apply_coupon(self, code: str) -> None:
        """Remember a coupon code; pricing checks it."""
        self.coupon = code.strip().upper()
