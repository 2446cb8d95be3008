(* A cart. *)
type item = { price : int }

let total items = List.fold_left (fun acc i -> acc + i.price) 0 items

module Cart = struct
  let add c i = i :: c
end

let () = print_int (total (Cart.add [] { price = 1 }))
