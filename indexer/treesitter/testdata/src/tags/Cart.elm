module Cart exposing (Item, total)

-- An item.
type alias Item = { price : Int }

type Color = Red | Green

total : List Item -> Int
total items =
    List.sum (List.map .price items)
