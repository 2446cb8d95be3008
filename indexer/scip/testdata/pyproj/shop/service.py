from shop.models import Order


def checkout(order_id):
    order = Order(order_id)
    order.save()
    return order
