package store

import "testing"

func TestSave(t *testing.T) {
	m := NewStore()
	m.Save(&Task{ID: 1})
	if m.count != 1 {
		t.Fatal("not saved")
	}
}

func helper() {}
