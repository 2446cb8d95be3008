package shop

import "testing"

func TestCheckout(t *testing.T) {
	m := &Mem{}
	if o := Checkout(m, 1); o.ID != 1 {
		t.Fatal("wrong order")
	}
}
