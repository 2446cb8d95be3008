class Base:
    def save(self):
        return True


class Order(Base):
    """One purchase."""

    def __init__(self, order_id):
        self.order_id = order_id
        self.total = 0

    def save(self):
        self.total += 1
        return super().save()
