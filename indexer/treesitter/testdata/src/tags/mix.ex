defmodule Shop.Cart do
  # Adds an item.
  def add(cart, item) do
    total(cart) + Shop.Price.of(item)
  end

  defp total(cart), do: Enum.sum(cart)
end
