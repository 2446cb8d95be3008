package shop

import "fmt"

// Store keeps orders.
type Store interface {
	Put(o *Order)
}

// Order is one purchase.
type Order struct {
	ID    int
	Total int
}

// Mem is an in-memory Store.
type Mem struct {
	orders []*Order
}

// Put records an order.
func (m *Mem) Put(o *Order) {
	m.orders = append(m.orders, o)
	o.Total++
}

func init() { register("mem") }

func init() { register("disk") }

func register(name string) { fmt.Println(name) }

// Checkout stores an order.
func Checkout(s Store, id int) *Order {
	o := &Order{ID: id}
	s.Put(o)
	return o
}
